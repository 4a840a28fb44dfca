"""A flavor's access list and extra specs (Nova's os-flavor-access, os-extra_specs).

Only a private flavor has an access list; any project id may be put on it (Nova
checks none). Extra specs are recorded and shown; none of them changes how
provisioner places or builds a guest.
"""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception

KIND = 'Flavor'


def _flavor(session, flavor_id):
    row = session.get(models.Flavor, flavor_id)
    if row is None:
        raise exception.NotFound(kind=KIND, name=flavor_id)
    return row


def access_list(flavor_id):
    """The projects of a private flavor; a public one has no list (Invalid)."""
    with db_api.transaction() as session:
        if _flavor(session, flavor_id).is_public:
            raise exception.Invalid(reason='Access list not available for public '
                                           'flavors.')
        return sorted(session.execute(sa.select(models.FlavorProject.project_id).where(
            models.FlavorProject.flavor_id == flavor_id)).scalars())


def add_access(flavor_id, project_id):
    """Put a project on the list; Conflict if it is there or the flavor is public."""
    with db_api.transaction() as session:
        if _flavor(session, flavor_id).is_public:
            raise exception.Conflict(reason='Can not add access to a public flavor.')
        if session.get(models.FlavorProject, (flavor_id, project_id)) is not None:
            raise exception.Conflict(reason='Flavor access already exists for flavor '
                                            '%s and project %s combination.'
                                            % (flavor_id, project_id))
        session.add(models.FlavorProject(flavor_id=flavor_id, project_id=project_id))
    return access_list(flavor_id)


def remove_access(flavor_id, project_id):
    with db_api.transaction() as session:
        _flavor(session, flavor_id)
        row = session.get(models.FlavorProject, (flavor_id, project_id))
        if row is None:
            raise exception.NotFound(kind='Flavor access',
                                     name='%s / %s' % (flavor_id, project_id))
        session.delete(row)
    return access_list(flavor_id)


def extra_specs(flavor_id):
    with db_api.transaction() as session:
        _flavor(session, flavor_id)
        return dict(session.execute(
            sa.select(models.FlavorExtraSpec.key, models.FlavorExtraSpec.value)
            .where(models.FlavorExtraSpec.flavor_id == flavor_id)).all())


def extra_specs_of(flavor_ids):
    """{flavor id: {key: value}} for many flavors in one query (list views)."""
    found = {flavor_id: {} for flavor_id in flavor_ids}
    if not found:
        return found
    with db_api.transaction() as session:
        for row in session.execute(sa.select(models.FlavorExtraSpec).where(
                models.FlavorExtraSpec.flavor_id.in_(list(found)))).scalars():
            found[row.flavor_id][row.key] = row.value
    return found


def set_extra_specs(flavor_id, specs):
    """Create or update these keys (the others stay)."""
    with db_api.transaction() as session:
        _flavor(session, flavor_id)
        for key, value in specs.items():
            row = session.get(models.FlavorExtraSpec, (flavor_id, key))
            if row is None:
                session.add(models.FlavorExtraSpec(flavor_id=flavor_id, key=key,
                                                   value=value))
            else:
                row.value = value
    return extra_specs(flavor_id)


def delete_extra_spec(flavor_id, key):
    with db_api.transaction() as session:
        _flavor(session, flavor_id)
        row = session.get(models.FlavorExtraSpec, (flavor_id, key))
        if row is None:
            raise exception.NotFound(kind='Flavor extra spec',
                                     name='%s of flavor %s' % (key, flavor_id))
        session.delete(row)


