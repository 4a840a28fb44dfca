"""A server's lock (Nova's lock/unlock actions): while locked, only an admin acts on it.

Nova keeps who locked it: an owner's lock its owner may lift, an admin's only an
admin. The checks run on the instance row the caller found, in its transaction.
"""

from provisioner import exception

OWNER, ADMIN = 'owner', 'admin'


class InstanceLocked(exception.Conflict):
    """Nova's 409 InstanceIsLocked."""

    msg_fmt = 'Instance %(name)s is locked'


def check_unlocked(context, row):
    """Refuse an action on a locked instance unless the caller is an admin."""
    if row.locked_by and not context.is_admin:
        raise InstanceLocked(name=row.id)


def lock(context, row, reason=None):
    """Lock ``row`` (with Nova's 2.73 ``reason``, if given); locking a locked
    instance changes nothing (as Nova)."""
    if not row.locked_by:
        row.locked_by = ADMIN if context.is_admin else OWNER
        row.locked_reason = reason


def unlock(context, row):
    """Unlock ``row``: an admin's lock only an admin may lift (Nova's 403)."""
    if row.locked_by == ADMIN and not context.is_admin:
        raise exception.Forbidden(reason='instance %s was locked by an admin; only an '
                                         'admin can unlock it' % row.id)
    row.locked_by = None
    row.locked_reason = None
