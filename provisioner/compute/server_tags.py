"""A server's tags (Nova's instance tags, compute 2.26): short strings a user
files servers under and lists them by.

Nova's limits: at most 50 a server, each 1 to 60 characters without ',' or '/'
(the list filters separate tags with commas). Tags change only while the server
is active or stopped, as Nova's (its vm_states active, paused, suspended,
stopped); the functions run on the instance row the caller found, in its
transaction.
"""

import sqlalchemy as sa

from provisioner.compute import states
from provisioner.db import models
from provisioner import exception

MAX_COUNT = 50
MAX_LENGTH = 60


def check_state(row, method):
    """Nova's 409 InstanceInvalidState for a tag change of a server not settled."""
    if row.vm_state not in (states.ACTIVE, states.STOPPED):
        raise exception.Conflict(reason="Cannot '%s' instance %s while it is in "
                                        "vm_state %s" % (method, row.id, row.vm_state))


def of(session, instance_ids):
    """{instance id: [tag, ...]} (sorted) of the given instances."""
    tags = {instance_id: [] for instance_id in instance_ids}
    if not tags:
        return tags
    tag = models.InstanceTag
    for instance_id, name in session.execute(
            sa.select(tag.instance_id, tag.tag).where(tag.instance_id.in_(tags))
            .order_by(tag.tag)):
        tags[instance_id].append(name)
    return tags


def replace(session, instance_id, tags):
    """The server's tags become ``tags`` (duplicates once); the list it has."""
    session.execute(sa.delete(models.InstanceTag).where(
        models.InstanceTag.instance_id == instance_id))
    for name in dict.fromkeys(tags):
        session.add(models.InstanceTag(instance_id=instance_id, tag=name))
    session.flush()
    return of(session, [instance_id])[instance_id]


def add(session, instance_id, tag):
    """Add ``tag``; False if the server had it already (Nova's 204 then)."""
    current = of(session, [instance_id])[instance_id]
    if len(current) >= MAX_COUNT:
        raise exception.Invalid(reason='The number of tags exceeded the per-server '
                                       'limit %d' % MAX_COUNT)
    if tag in current:
        return False
    session.add(models.InstanceTag(instance_id=instance_id, tag=tag))
    return True


def remove(session, instance_id, tag):
    deleted = session.execute(sa.delete(models.InstanceTag).where(
        models.InstanceTag.instance_id == instance_id,
        models.InstanceTag.tag == tag)).rowcount
    if not deleted:
        raise exception.NotFound(kind='Instance %s tag' % instance_id, name=tag)


def matching(all_of=(), any_of=(), not_all=(), not_any=()):
    """A where-clause on instances for Nova's tags, tags-any, not-tags and
    not-tags-any filters (each a list of tags)."""
    inst, tag = models.Instance, models.InstanceTag

    def having(name):
        return sa.exists().where(tag.instance_id == inst.id, tag.tag == name)

    clauses = [having(name) for name in all_of]
    if any_of:
        clauses.append(sa.or_(*[having(name) for name in any_of]))
    if not_all:
        clauses.append(sa.not_(sa.and_(*[having(name) for name in not_all])))
    if not_any:
        clauses.append(sa.not_(sa.or_(*[having(name) for name in not_any])))
    return sa.and_(*clauses) if clauses else sa.true()
