"""Versioned notifications of instance actions, in the shape Nova sends them.

Event types: ``instance.create.start/end/error``, ``instance.delete.start/end``,
``instance.power_off.*`` (stop), ``instance.power_on.*`` (start),
``instance.reboot.*``, ``instance.rebuild.*`` and ``instance.snapshot.*``
(createImage); ``.error`` at priority ERROR,
the others INFO. The publisher is ``provisioner-compute:<[DEFAULT] host>``, the topics
``[notifications] versioned_notifications_topics``.

The payload is an ``InstanceActionPayload`` 1.8 as Nova serialises it
(``nova_object.name/namespace/version/data``), with this subset of its fields:
uuid, display_name, state (vm_state), task_state, power_state, host, node,
tenant_id, user_id, flavor (FlavorPayload: flavorid, name, vcpus, memory_mb,
root_gb), image_uuid, ip_addresses (IpPayload: address, mac, port_uuid, label,
version), key_name, availability_zone, metadata, created_at, launched_at,
request_id, and fault (ExceptionPayload: exception, exception_message,
function_name = the step that failed) or None.

Notifications are sent only when a transport is configured for them:
``[oslo_messaging_notifications] transport_url``, or ``[DEFAULT] transport_url``
(distributed), and never with ``[oslo_messaging_notifications] driver = noop``.
All-in-one without either, no notifier exists and oslo.messaging is not imported
for it. Sending never breaks a flow: a failure is logged at WARNING.
"""

import logging
import threading

from provisioner.compute import actions
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.network import ipam
from provisioner import rpc

LOG = logging.getLogger(__name__)

START, END, ERROR = 'start', 'end', 'error'

EVENT_TYPES = {actions.CREATE: 'instance.create', actions.DELETE: 'instance.delete',
               actions.STOP: 'instance.power_off', actions.START: 'instance.power_on',
               actions.REBOOT: 'instance.reboot',
               actions.CREATE_IMAGE: 'instance.snapshot'}  # Nova's names

_GROUP = 'oslo_messaging_notifications'
_DISABLED = object()
_lock = threading.Lock()
_notifier = None  # None: not decided yet; _DISABLED: not configured


def _nova_object(name, version, data):
    return {'nova_object.name': name, 'nova_object.namespace': 'nova',
            'nova_object.version': version, 'nova_object.data': data}


# -- whether to send, without importing oslo.messaging when it cannot be configured --

def _may_be_configured():
    # Options oslo.messaging registered already (a distributed process did): ask it.
    # Otherwise only a config file or the environment (OS_<GROUP>__<OPTION>) can
    # set them.
    if 'transport_url' in CONF or _GROUP in CONF:
        return True
    return rpc.set_outside_code((_GROUP, 'transport_url'), ('DEFAULT', 'transport_url'))


def _register_messaging_opts():
    rpc.messaging()  # picks the threading backend before oslo.messaging's import
    from oslo_messaging import opts as messaging_opts
    for group, opts in messaging_opts.list_opts():
        if group == _GROUP:
            CONF.register_opts(opts, group=_GROUP)


def _driver():
    """(enabled, the driver to name): None means [oslo_messaging_notifications] driver.

    With a transport but no driver configured, Nova's messagingv2 is used.
    """
    if not _may_be_configured():
        return False, None
    _register_messaging_opts()
    group = CONF[_GROUP]
    if not group.transport_url and not rpc.configured_transport_url():
        return False, None
    if group.driver:
        return any(d != 'noop' for d in group.driver), None
    return True, 'messagingv2'


def _create_notifier():
    enabled, driver = _driver()
    if not enabled:
        return _DISABLED
    oslo_messaging = rpc.messaging()
    transport = oslo_messaging.get_notification_transport(CONF)
    return oslo_messaging.Notifier(
        transport, publisher_id='provisioner-compute:%s' % CONF.host, driver=driver,
        topics=CONF.notifications.versioned_notifications_topics)


def get_notifier():
    """The process's Notifier, created on first use; None when not configured."""
    global _notifier
    with _lock:
        if _notifier is None:
            _notifier = _create_notifier()
        return None if _notifier is _DISABLED else _notifier


def reset():
    """Forget the notifier and close its transport (a daemon stopping; tests)."""
    global _notifier
    with _lock:
        notifier, _notifier = _notifier, None
    if notifier not in (None, _DISABLED):
        notifier.transport.cleanup()


# -- the payload -------------------------------------------------------------------

def _fault_payload(fault):
    if not fault:
        return None
    step, sep, _rest = fault.partition(': ')
    return _nova_object('ExceptionPayload', '1.1', {
        'exception': 'ProvisionerError', 'exception_message': fault,
        'function_name': step if sep else None, 'module_name': None,
        'traceback': None})


def _iso(value):
    return value.isoformat() + 'Z' if value is not None else None


def instance_payload(instance_id, request_id=None, fault=None):
    """The InstanceActionPayload of the instance as it is now (see module doc)."""
    with db_api.transaction() as session:
        row = session.get(models.Instance, instance_id)
        flavor = session.get(models.Flavor, row.flavor_id)
        data = {
            'uuid': row.id, 'display_name': row.name, 'state': row.vm_state,
            'task_state': row.task_state, 'power_state': row.power_state,
            'host': row.host, 'node': row.host, 'tenant_id': row.project_id,
            'user_id': row.user_id, 'image_uuid': row.image_id,
            'key_name': row.key_name, 'metadata': dict(row.properties or {}),
            'availability_zone': (row.request_spec or {}).get('availability_zone'),
            'created_at': _iso(row.created_at), 'launched_at': _iso(row.launched_at),
            'request_id': request_id, 'fault': _fault_payload(fault),
            'flavor': _nova_object('FlavorPayload', '1.4', {
                'flavorid': flavor.id, 'name': flavor.name, 'vcpus': flavor.vcpus,
                'memory_mb': flavor.ram_mib, 'root_gb': flavor.disk_gib})}
    data['ip_addresses'] = [
        _nova_object('IpPayload', '1.0', {
            'address': port['ip'], 'mac': port['mac'], 'port_uuid': port['id'],
            'label': port['network']['name'], 'version': 6 if ':' in port['ip'] else 4})
        for port in ipam.ports_for(instance_id)]
    return _nova_object('InstanceActionPayload', '1.8', data)


def notify(instance_id, action, phase, request_id=None, fault=None):
    """Send ``instance.<action>.<phase>``; a no-op unless configured; never raises."""
    event_type = '%s.%s' % (EVENT_TYPES.get(action, 'instance.%s' % action), phase)
    try:
        notifier = get_notifier()
        if notifier is None:
            return
        payload = instance_payload(instance_id, request_id, fault)
        send = notifier.error if phase == ERROR else notifier.info
        send({'request_id': request_id} if request_id else {}, event_type, payload)
    except Exception as exc:  # a notification must never break the flow it reports
        LOG.warning('Could not send notification %s of instance %s: %s: %s',
                    event_type, instance_id, type(exc).__name__, exc)
