"""The jobboard (Redis): where provisioner-api posts flows and conductors claim them.

A job names an action on an instance (``boot``, ``delete``, or ``power`` with the id
of the instance action: a stop, start, reboot, attach or detach) or a volume's
delete, and nothing else: the flow itself is in the database, so any engine can run
it from its last step.
"""

import logging
import threading
import urllib.parse

from taskflow.jobs.backends import impl_redis

from provisioner.conf import CONF
from provisioner.engine import persistence

LOG = logging.getLogger(__name__)

BOOT = 'boot'
DELETE = 'delete'
POWER = 'power'
VOLUME_DELETE = 'volume-delete'
VOLUME_FLOW = 'volume-flow'  # a snapshot's create or delete, a volume's copy

_lock = threading.Lock()
_board = None


def _redis_conf(url):
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme != 'redis':
        raise ValueError('[jobboard] url must be redis://host:port/db, not %s://'
                         % parsed.scheme)
    conf = {'host': parsed.hostname or '127.0.0.1', 'port': parsed.port or 6379,
            'db': int(parsed.path.strip('/') or 0), 'namespace': CONF.jobboard.name,
            'socket_timeout': 5.0, 'socket_connect_timeout': 5.0}
    if parsed.password:
        conf['password'] = urllib.parse.unquote(parsed.password)
    return conf


def redis_location():
    """host:port/db of the jobboard, for messages (never the password)."""
    conf = _redis_conf(CONF.jobboard.url)
    return '%s:%s/%s' % (conf['host'], conf['port'], conf['db'])


class RedisJobBoard(impl_redis.RedisJobBoard):
    """TaskFlow's Redis jobboard, with a look for unclaimed jobs that costs two round
    trips whatever the backlog, and gives them oldest first.

    The stock iterator asks Redis for each job's state in turn (a MULTI of HEXISTS
    and EXISTS per job): a conductor's poll cost one round trip per pending job,
    claimed or not, so it grew with the backlog. Here the owner keys of all listed
    jobs are checked in one pipeline. A job claimed between that check and our
    claim is refused by the claim itself, as before.

    The stock order is newest first: under a backlog the first boots requested
    waited for every later one. Oldest first, no boot waits for one requested after
    it, and a job whose engine died (older than every job still waiting, since jobs
    are claimed in order) is the first taken over.
    """

    def iterjobs(self, only_unclaimed=False, ensure_fresh=False):
        if not only_unclaimed:
            return super().iterjobs(only_unclaimed, ensure_fresh)
        listed = sorted(self._fetch_jobs(), key=lambda job: job.sequence)  # one HGETALL
        if not listed:
            return iter(())
        with impl_redis._translate_failures():
            pipe = self._client.pipeline(transaction=False)
            for job in listed:
                pipe.exists(job.owner_key)
            owned = pipe.execute()
        return iter([job for job, taken in zip(listed, owned) if not taken])


def get_board():
    """The process's connected jobboard."""
    global _board
    with _lock:
        if _board is None:
            board = RedisJobBoard(CONF.jobboard.name, _redis_conf(CONF.jobboard.url),
                                  persistence=persistence.get_backend())
            board.connect()
            _board = board
        return _board


def reset():
    global _board
    with _lock:
        board, _board = _board, None
    if board is not None:
        board.close()


def job_name(action, instance_id):
    return '%s-%s' % (action, instance_id)


def find(action, instance_id):
    """The pending job for this action on this instance, or None."""
    name = job_name(action, instance_id)
    for job in get_board().iterjobs(ensure_fresh=True):
        if job.name == name:
            return job
    return None


def post(action, instance_id, new=False):
    """Post the job unless one for the same action and instance is pending.

    ``new``: the instance was just created, so there is nothing to look for (looking
    reads every pending job).
    """
    existing = None if new else find(action, instance_id)
    if existing is not None:
        return existing
    job = get_board().post(job_name(action, instance_id),
                           details={'action': action, 'instance_id': instance_id})
    LOG.info('Posted job %s (%s)', job.name, job.uuid)
    return job


def post_volume_delete(volume_id):
    """Post the delete of a volume's file and row, unless one is pending."""
    name = job_name(VOLUME_DELETE, volume_id)
    existing = find(VOLUME_DELETE, volume_id)
    if existing is not None:
        return existing
    job = get_board().post(name, details={'action': VOLUME_DELETE,
                                          'volume_id': volume_id})
    LOG.info('Posted job %s (%s)', job.name, job.uuid)
    return job


def post_volume_flow(kind, resource_id):
    """Post a snapshot or copy flow (engine.volume_flows), unless one is pending."""
    existing = find(kind, resource_id)
    if existing is not None:
        return existing
    job = get_board().post(job_name(kind, resource_id),
                           details={'action': VOLUME_FLOW, 'kind': kind,
                                    'resource_id': resource_id})
    LOG.info('Posted job %s (%s)', job.name, job.uuid)
    return job


def volume_of(job):
    """The volume a volume-delete job is about (an earlier release posted it under
    'instance_id')."""
    return job.details.get('volume_id') or job.details['instance_id']


def post_action(instance_id, action_id):
    """Post the job of a power action; one per action, named ``power-<action id>``.

    The action was just recorded, so no job of it can be pending yet. Posting one
    twice is harmless all the same: the second run finds the flow ended.
    """
    job = get_board().post(job_name(POWER, action_id),
                           details={'action': POWER, 'instance_id': instance_id,
                                    'action_id': action_id})
    LOG.info('Posted job %s (%s)', job.name, job.uuid)
    return job
