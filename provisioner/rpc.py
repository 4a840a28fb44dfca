"""oslo.messaging plumbing: one transport per process, threads only.

A deployment is distributed when ``[DEFAULT] transport_url`` names a broker
(provisioner.deployment): the engines send host-side steps to each host's worker,
workers report to the engines. Creating and tearing down a transport costs about a
second, so each process keeps one for life.
"""

import glob
import os
import threading

from provisioner.conf import CONF

_lock = threading.Lock()
_TRANSPORT_URL = ('DEFAULT', 'transport_url')
_transport = None
_clients = {}

# Errors a caller receives from an engine or a worker (maintenance calls) keep their
# type, hence their status and message.
_ALLOWED_REMOTE_EXMODS = ['provisioner.exception']


def messaging():
    # oslo.messaging imports oslo.service, which defaults to eventlet; provisioner
    # runs on threads only, so pick the threading backend before the import.
    from oslo_service import backend
    backend.init_backend(backend.BackendType.THREADING)
    import oslo_messaging
    return oslo_messaging


def register_transport_opts():
    """Register oslo.messaging's [DEFAULT] options (transport_url among them), importing
    it (~0.1 s); return transport_url's default."""
    messaging()
    from oslo_messaging import opts as messaging_opts
    for group, opts in messaging_opts.list_opts():
        if group is None:
            CONF.register_opts(opts)
            return next(opt.default for opt in opts if opt.name == 'transport_url')


def _config_files():
    files = list(CONF.config_file or [])
    for directory in CONF.config_dir or []:
        files.extend(sorted(glob.glob(os.path.join(directory, '*.conf'))))
    return files


def set_outside_code(*options):
    """Whether the environment (oslo.config's OS_<GROUP>__<OPTION>) or a configuration
    file CONF read sets any of these (group, name) options, registered or not: what
    they say, without importing the options' owner (the files are parsed once)."""
    if any(os.environ.get('OS_%s__%s' % (group.upper(), name.upper()))
           for group, name in options):
        return True
    from oslo_config import cfg
    sections = {}
    for path in _config_files():
        cfg.ConfigParser(path, sections).parse()
    return any((sections.get(group, {}).get(name) or [''])[-1]
               for group, name in options)


def configured_transport_url():
    """The broker ``[DEFAULT] transport_url`` names, or None when nothing names one.

    oslo.messaging's own default ('rabbit://') does not count unless a config file
    says it: all-in-one is the default, and needs no broker. Until something
    registered oslo.messaging's options, a transport_url can only come from a file
    or the environment: without one, the answer is known without importing it.
    provisioner.deployment decides the deployment's mode from this answer.
    """
    if 'transport_url' not in CONF and not set_outside_code(_TRANSPORT_URL):
        return None
    from oslo_config import cfg
    default = register_transport_opts()
    value = CONF.transport_url
    if not value:
        return None
    # The location alone is not enough: it still says "override" after CONF.reset().
    if (value != default
            or CONF.get_location('transport_url').location == cfg.Locations.user):
        return value
    return None


def get_transport():
    global _transport
    with _lock:
        if _transport is None:
            register_transport_opts()
            _transport = messaging().get_rpc_transport(
                CONF, allowed_remote_exmods=_ALLOWED_REMOTE_EXMODS)
        return _transport


def get_client(topic, server=None, timeout=None, call_monitor_timeout=None,
               version=None, version_cap=None):
    """A cached RPC client; ``prepare()`` it for per-call routing and timeouts.

    ``version`` is the API's base version, ``version_cap`` the newest one it may send
    (``[upgrade_levels]``; None: any), as nova's rpcapi clients.
    """
    key = (topic, server, timeout, call_monitor_timeout, version, version_cap)
    with _lock:
        client = _clients.get(key)
    if client is None:
        oslo_messaging = messaging()
        target = oslo_messaging.Target(topic=topic, server=server, version=version)
        client = oslo_messaging.get_rpc_client(
            get_transport(), target, timeout=timeout, version_cap=version_cap,
            call_monitor_timeout=call_monitor_timeout)
        with _lock:
            client = _clients.setdefault(key, client)
    return client


def get_server(topic, server, endpoints):
    """An RPC server on topic (and topic.server) dispatching to endpoints on threads."""
    oslo_messaging = messaging()
    target = oslo_messaging.Target(topic=topic, server=server)
    return oslo_messaging.get_rpc_server(get_transport(), target, endpoints,
                                         executor='threading')


def endpoint_target(version, namespace=None):
    """The ``target`` attribute of an endpoint serving ``version`` (and older minors)."""
    return messaging().Target(version=version, namespace=namespace)


def messaging_errors():
    """The exception types meaning 'the other side did not answer'."""
    oslo_messaging = messaging()
    return (oslo_messaging.MessagingTimeout, oslo_messaging.MessageDeliveryFailure)


def cleanup():
    global _transport
    with _lock:
        transport, _transport = _transport, None
        _clients.clear()
    if transport is not None:
        transport.cleanup()
