"""Whose network rows a caller sees: Neutron's owner check, in one place.

A project sees its own ports, routers, security groups and rules; an admin sees
every project's. A row the caller may not see is answered as missing (404), never
as forbidden, so its existence is not given away.
"""


def visible(context, row):
    return context.is_admin or row.project_id == context.project_id


def get(session, context, model, row_id, not_found):
    """The ``model`` row ``row_id`` if the caller sees it; else ``not_found(name=...)``."""
    row = session.get(model, row_id)
    if row is None or not visible(context, row):
        raise not_found(name=row_id)
    return row
