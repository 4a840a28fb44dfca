"""Client side of the ``maintenance`` RPC namespace: audits, orphans and teardown.

Two services answer it: every provisioner-worker (the host side, on
``[worker] topic`` with server=<host>) and the engines (the database side, on
``[engine] topic``). Both sides pin the version they send with
``[upgrade_levels] maintenance``, for rolling upgrades.

API version history:

    1.0 - Initial version. Host: inventory, remove_resources, delete_network,
          teardown. Engine: reconcile_host, record_removals.
    1.1 - Host: console_output (the serial console log lives on the host).
    1.2 - Host: trigger_crash_dump (an NMI into the guest, compute 2.17).
"""

import threading

from provisioner.conf import CONF
from provisioner import exception
from provisioner import rpc

NAMESPACE = 'maintenance'
VERSION = '1.2'

_clients = {}
_lock = threading.Lock()


def target():
    """The Target of both endpoints (worker and engine) of this namespace."""
    return rpc.messaging().Target(namespace=NAMESPACE, version=VERSION)


def _client(topic):
    """One RPC client per transport, topic and version cap (made once: a client
    costs a round of setup; the transport changes only in tests)."""
    cap, transport = CONF.upgrade_levels.maintenance, rpc.get_transport()
    key = (id(transport), topic, cap)
    with _lock:
        client = _clients.get(key)
        if client is None:
            messaging = rpc.messaging()
            target = messaging.Target(topic=topic, namespace=NAMESPACE,
                                      version=VERSION)
            client = _clients[key] = messaging.get_rpc_client(transport, target,
                                                              version_cap=cap)
        return client


class HostUnavailable(exception.Conflict):
    """The host's worker cannot be asked now (409, as Nova's)."""


class ConsoleUnavailable(HostUnavailable):
    """The host's worker cannot be asked for a console log now (409, as Nova's)."""


class HostMaintenanceAPI:
    """Calls the worker of one host (no database there: data in, data out)."""

    def __init__(self, timeout=None):
        self._timeout = timeout or CONF.engine.api_timeout

    def _prepare(self, host, timeout=None, version='1.0'):
        return _client(CONF.worker.topic).prepare(
            server=host, version=version, timeout=timeout or self._timeout)

    def inventory(self, host):
        """[Resource dict] of this deployment on ``host``."""
        return self._prepare(host).call({}, 'inventory')

    def remove_resources(self, host, resources):
        """Remove the given inventory entries; [{'kind', 'name', 'error'}]."""
        return self._prepare(host).call({}, 'remove_resources', resources=resources)

    def delete_network(self, host, network_id, timeout=None):
        return self._prepare(host, timeout).call({}, 'delete_network',
                                                 network_id=network_id)

    def console_output(self, host, instance_id):
        """The text of the instance's console log on ``host`` ('' if none yet).

        ConsoleUnavailable, saying why, while this process may not send 1.1
        (``[upgrade_levels] maintenance``) or the host's worker does not answer.
        """
        client = _client(CONF.worker.topic)
        if not client.can_send_version('1.1'):
            raise ConsoleUnavailable(reason=(
                'Console output of instance %s is not available yet: it is read by '
                'the worker of host %s with maintenance RPC 1.1, and [upgrade_levels] '
                'maintenance caps this service at %s; retry once the upgrade is '
                'done.' % (instance_id, host, CONF.upgrade_levels.maintenance)))
        try:
            return self._prepare(host, version='1.1').call({}, 'console_output',
                                                           instance_id=instance_id)
        except rpc.messaging_errors() as exc:
            raise ConsoleUnavailable(reason=(
                'Console output of instance %s is not available: the worker of host '
                '%s did not answer (%s); is provisioner-worker running there?'
                % (instance_id, host, type(exc).__name__))) from None

    def trigger_crash_dump(self, host, instance_id):
        """Inject an NMI into the instance's guest on ``host``.

        HostUnavailable (409), saying why, while this process may not send 1.2
        or the host's worker does not answer; the host's own refusal (the guest
        does not run) comes back as the worker raised it.
        """
        if not _client(CONF.worker.topic).can_send_version('1.2'):
            raise HostUnavailable(reason=(
                'Cannot trigger a crash dump of instance %s yet: [upgrade_levels] '
                'maintenance caps this service at %s (1.2 needed).'
                % (instance_id, CONF.upgrade_levels.maintenance)))
        try:
            self._prepare(host, version='1.2').call({}, 'trigger_crash_dump',
                                                    instance_id=instance_id)
        except rpc.messaging_errors() as exc:
            raise HostUnavailable(reason=(
                'Cannot trigger a crash dump of instance %s: the worker of host %s '
                'did not answer (%s).' % (instance_id, host, type(exc).__name__))
            ) from None

    def teardown(self, host):
        """Remove every pool, network and file of this deployment on ``host``."""
        return self._prepare(host).call({}, 'teardown')


class EngineMaintenanceAPI:
    """Calls any engine (they share the database)."""

    def _prepare(self):
        return _client(CONF.engine.topic).prepare(version='1.0',
                                                  timeout=CONF.engine.api_timeout)

    def reconcile_host(self, host, resources, grace_period):
        """The findings (dicts) for a host's inventory, compared with the database."""
        return self._prepare().call({}, 'reconcile_host', host=host,
                                    resources=resources, grace_period=grace_period)

    def record_removals(self, host, findings, outcomes):
        """Tell the engine what the host removed of its orphans (and what not)."""
        self._prepare().cast({}, 'record_removals', host=host, findings=findings,
                             outcomes=outcomes)
