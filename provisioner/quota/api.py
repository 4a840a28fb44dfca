"""Quotas on behalf of a caller: which project's, and whether the policy allows it.

The CLI's ``quota show|set`` and the provisioner extension's
``/provisioner/quotas/{project}`` (the counted resources, provisioner's names);
the OpenStack APIs show the same limits in their services' words.
"""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy
from provisioner.quota import counters


def project_id(context, name, action):
    """The project whose quota ``action`` targets (default: the caller's), if allowed.

    A project the caller may not act on reads as not found, like another project's
    instance: a member cannot probe which project names exist.
    """
    if name is None or name in (context.project_name, context.project_id):
        found = context.project_id
    else:
        with db_api.transaction() as session:
            found = session.execute(sa.select(models.Project.id).where(sa.or_(
                models.Project.id == name, models.Project.name == name))).scalar()
        if found is None:
            raise exception.NotFound(kind='Project', name=name)
    policy.authorize_owned(context, action, found, 'Project', name)
    return found


def show(context, project=None):
    return counters.show(project_id(context, project, 'quota:show'))


def set_limits(context, project, limits):
    """Set limits given as {resource: value}; unknown resources are refused."""
    if all(value is None for value in limits.values()):
        raise exception.Invalid(reason='give at least one of %s'
                                       % ', '.join(counters.RESOURCES))
    return counters.set_limits(project_id(context, project, 'quota:set'), **limits)
