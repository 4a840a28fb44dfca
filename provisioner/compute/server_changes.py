"""What a user reads and changes of an existing server, beside its flows: its
console, the actions it ran, its name, access addresses and fields, tags, metadata
and lock. A mixin of compute.api.ComputeAPI (its ``_find``, ``_instance_id``,
``context`` and ``deployment``).
"""

import ipaddress
import logging
import os

from provisioner.compute import actions
from provisioner.compute import image_snapshots
from provisioner.compute import instances
from provisioner.compute import locks
from provisioner.compute import server_metadata
from provisioner.compute import server_tags
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner import exception
from provisioner import schemas
from provisioner import validation

LOG = logging.getLogger(__name__)

# What a create or update may set besides the name (compute 2.19, 2.63, 2.90), by
# the instance's column.
SERVER_FIELDS = {'description': 'description', 'hostname': 'hostname',
                  'trusted_image_certificates': 'trusted_certs'}


def set_access_ips(row, access_ips):
    """Nova's accessIPv4/accessIPv6 ({'v4', 'v6'}, each optional; '' or None
    clears one), kept in their compressed form as Nova's (IPv6 '0:0::1' is '::1')."""
    for version, value in (access_ips or {}).items():
        try:
            address = str(ipaddress.ip_address(value)) if value else None
        except ValueError:
            raise exception.Invalid(reason='access%s %r is not an IP%s address'
                                           % (version.upper(), value, version)) from None
        setattr(row, 'access_ip_' + version, address)


class ServerChanges:
    """Consoles, actions, updates, tags, metadata and lock of one caller's servers."""

    def create_image(self, name_or_id, name, metadata=None):
        """Record a snapshot of the server into a new image (its flow:
        flows.create_image); (instance id, action id, image id)."""
        return image_snapshots.request(self, name_or_id, name, metadata)

    def _local_console_log(self, instance_id):
        """Where this host keeps the instance's console log (all-in-one), else None."""
        hypervisor = self.deployment.hypervisor
        return hypervisor.console_log_path(instance_id) if hypervisor else None

    def console(self, name_or_id):
        """The console log's path on the instance's host."""
        instance_id = self._instance_id(name_or_id, 'instance:console')
        _host, reported = self._console_host(instance_id)
        local = self._local_console_log(instance_id)
        path = reported or local
        # Another host's file cannot be checked from here.
        if path is None or (local and not os.path.exists(path)):
            raise exception.NotFound(kind='Console log of instance', name=name_or_id)
        return path

    def _console_host(self, instance_id):
        """(the instance's host, if chosen; the console log path it reported, if
        any)."""
        with db_api.transaction() as session:
            row = instances.get_row(session, instance_id)
            return row.host, (row.request_spec or {}).get('console_log')

    def console_output(self, name_or_id, length=None):
        """The serial console's text, the last ``length`` lines if given.

        It is what the guest printed: data, never markup (undecodable bytes become
        U+FFFD). An instance that has not printed anything yet has an empty log.
        """
        instance_id = self._instance_id(name_or_id, 'instance:console')
        host, _ = self._console_host(instance_id)
        if host is None and self.deployment.distributed:
            text = ''  # no host chosen yet: nothing printed anywhere
        else:  # as Nova: the instance's host reads its own file
            text = self.deployment.hosts.console_output(host, instance_id)
        if length is not None:
            lines = text.splitlines(keepends=True)
            text = ''.join(lines[-length:]) if length > 0 else ''
        return text

    def trigger_crash_dump(self, name_or_id):
        """Nova's trigger_crash_dump (2.17): an NMI into the guest, by its host.

        As Nova: a locked instance, one without a host, one in another vm_state than
        Nova allows (of provisioner's: active and error) or with a task under way is
        a 409; the request is recorded as an instance action, whose message says
        'Error' when the host could not inject it (Nova's is a cast: the caller
        gets 202 either way).
        """
        with db_api.transaction() as session:
            row = self._find(session, name_or_id, 'instance:trigger_crash_dump')
            locks.check_unlocked(self.context, row)
            if row.host is None:
                raise exception.Conflict(reason='Instance %s is not ready' % row.id)
            if row.vm_state not in (states.ACTIVE, states.ERROR) or row.task_state:
                attr, state = (('task_state', row.task_state) if row.task_state
                               else ('vm_state', row.vm_state))
                raise exception.Conflict(
                    reason="Cannot 'trigger_crash_dump' instance %s while it is in "
                           "%s %s" % (row.id, attr, state))
            instance_id, host = row.id, row.host
            action_id = actions.record(session, self.context, instance_id,
                                       actions.TRIGGER_CRASH_DUMP)
        message = None
        try:
            self.deployment.hosts.trigger_crash_dump(host, instance_id)
        except Exception as exc:
            LOG.warning('Could not inject an NMI into instance %s on host %s: %s',
                        instance_id, host, exc)
            message = 'Error'
        actions.finish(action_id, message)

    # -- actions (the steps each request ran) ---------------------------------------

    # A deleted instance's actions stay readable by its id, as Nova's do: a client
    # that watched a delete can still read how it went.

    def actions(self, name_or_id):
        return actions.list_for(self._instance_id(name_or_id, 'instance:actions',
                                                  deleted=True))

    def action(self, name_or_id, request_id):
        return actions.show(self._instance_id(name_or_id, 'instance:actions',
                                              deleted=True), request_id)

    def rename(self, name_or_id, new_name):
        return self.update(name_or_id, name=new_name)

    def update(self, name_or_id, name=None, access_ips=None, fields=None):
        """Rename and/or set the access addresses ({'v4', 'v6'}: None clears one)
        and ``fields`` (description, hostname: None clears one); the instance id."""
        if name is not None:
            validation.check({'name': name}, schemas.RENAME)
        with db_api.transaction() as session:
            row = self._find(session, name_or_id, 'instance:update')
            if name is not None:
                row.name = name
            set_access_ips(row, access_ips)
            for field, value in (fields or {}).items():
                setattr(row, SERVER_FIELDS[field], value)
            return row.id

    def change_tags(self, name_or_id, method, change):
        """``change(session, instance_id)`` of the server's tags, once it may
        (server_tags.check_state; ``method`` names the change); its result."""
        with db_api.transaction() as session:
            row = self._find(session, name_or_id, 'instance:update')
            if method:
                server_tags.check_state(row, method)
            return change(session, row.id)

    # -- password, metadata and lock ---------------------------------------------------

    def password(self, name_or_id):
        """Nova's os-server-password: the encrypted password its guest posted, or ''."""
        with db_api.transaction() as session:
            return self._find(session, name_or_id, 'instance:show').password or ''

    def clear_password(self, name_or_id):
        """Forget the posted password (the guest's own is unchanged, as Nova's)."""
        with db_api.transaction() as session:
            self._find(session, name_or_id, 'instance:update').password = None

    def update_metadata(self, name_or_id, items, replace=False):
        """Merge ``items`` into the instance's metadata (or replace it with them);
        the metadata it then has."""
        with db_api.transaction() as session:
            row = self._find(session, name_or_id, 'instance:update')
            locks.check_unlocked(self.context, row)
            row.properties = server_metadata.updated(row.properties, items, replace)
            return dict(row.properties)

    def delete_metadata_item(self, name_or_id, key):
        with db_api.transaction() as session:
            row = self._find(session, name_or_id, 'instance:update')
            locks.check_unlocked(self.context, row)
            row.properties = server_metadata.without(row.properties, key)

    def lock(self, name_or_id, reason=None):
        with db_api.transaction() as session:
            locks.lock(self.context, self._find(session, name_or_id, 'instance:lock'),
                       reason)

    def reset_state(self, name_or_id, vm_state):
        """Nova's os-resetState: the state an admin says (active or error), no task."""
        with db_api.transaction() as session:
            row = self._find(session, name_or_id, 'instance:reset_state')
            row.vm_state, row.task_state = vm_state, None

    def check_admin_action(self, name_or_id, action):
        """The instance, if the caller may ``action`` it (a policy name)."""
        with db_api.transaction() as session:
            return self._find(session, name_or_id, action).id

    def unlock(self, name_or_id):
        with db_api.transaction() as session:
            locks.unlock(self.context, self._find(session, name_or_id,
                                                  'instance:unlock'))
