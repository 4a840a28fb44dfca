"""Quotas on behalf of a caller: which project's, and whether the policy allows it."""

from provisioner.catalog import common
from provisioner.compute import quotas
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy


def project_id(context, name, action):
    """The project whose quota ``action`` targets (default: the caller's), if allowed.

    A project the caller may not act on reads as not found, like another project's
    instance: a member cannot probe which project names exist.
    """
    if name is None or name in (context.project_name, context.project_id):
        found = context.project_id
    else:
        with db_api.transaction() as session:
            found = common.find(session, models.Project, name, 'Project').id
    policy.authorize_owned(context, action, found, 'Project', name)
    return found


def show(context, project=None):
    return quotas.show(project_id(context, project, 'quota:show'))


def set_limits(context, project, limits):
    """Set limits given as {resource: value}; unknown resources are refused."""
    unknown = sorted(set(limits) - set(quotas.RESOURCES))
    if unknown:
        raise exception.Invalid(reason='unknown quota resource(s) %s; there are: %s'
                                       % (', '.join(unknown),
                                          ', '.join(quotas.RESOURCES)))
    if all(limits.get(r) is None for r in quotas.RESOURCES):
        raise exception.Invalid(reason='give at least one of %s'
                                       % ', '.join(quotas.RESOURCES))
    for resource, value in limits.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise exception.Invalid(reason='quota %s must be an integer, not %r'
                                           % (resource, value))
    return quotas.set_limits(project_id(context, project, 'quota:set'), **limits)
