"""A host's side of security groups: one libvirt nwfilter per port (a mixin of the
driver; the filter itself: provisioner.virt.libvirt.port_filter).

Why nwfilter rather than nftables/iptables chains of our own: libvirt finds the
guest's tap, applies the filter before the guest's first packet (when the domain
starts or the interface is plugged), removes the rules with the interface, and
re-applies a redefined filter to every running interface using it: a rule change is
one define. It runs in the libvirtd's own network namespace, so a namespace host's
libvirtd filters its guests there; it ships the anti-spoofing filters (clean-traffic)
and needs no tool this machine lacks (no nft binary here).

A filter is named ``<prefix>-port-<port id>`` (the deployment's resource prefix):
what this deployment owns is decidable from the name (``port_filters()``).
"""

import uuid

import libvirt

from provisioner import conf as provisioner_conf
from provisioner import exception
from provisioner.virt.libvirt import host as libvirt_host
from provisioner.virt.libvirt import port_filter

_INFIX = '-port-'


def _conf():
    return provisioner_conf.CONF


def _port_id(value):
    """A port id (a UUID): it ends up in a libvirt name."""
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise exception.Invalid(reason='%r is not a port id' % (value,)) from None


def _uri_filters():
    """False on libvirt's test driver (test:///...), which has no nwfilter."""
    return not _conf().libvirt.connection_uri.startswith('test:')


class PortFilters:
    def port_filter_name(self, port_id):
        return '%s%s%s' % (self.resource_prefix(), _INFIX, _port_id(port_id))

    def _lookup_filter(self, name):
        try:
            return self._conn().nwfilterLookupByName(name)
        except libvirt.libvirtError as exc:
            if libvirt_host.error_code(exc) == libvirt.VIR_ERR_NO_NWFILTER:
                return None
            with libvirt_host.translate_errors('looking up filter %s' % name):
                raise

    def ensure_port_filter(self, state):
        """Define (or redefine: running guests follow at once) the port's filter;
        its name."""
        name = self.port_filter_name(state['port_id'])
        if _uri_filters():
            with libvirt_host.translate_errors('defining filter %s' % name):
                self._conn().nwfilterDefineXML(port_filter.build_filter(name, state))
        return name

    def delete_port_filter(self, port_id):
        """Undefine the port's filter; libvirt refuses while a domain's interface
        still uses it."""
        if not _uri_filters():
            return
        name = self.port_filter_name(port_id)
        found = self._lookup_filter(name)
        if found is not None:
            with libvirt_host.translate_errors('undefining filter %s' % name):
                found.undefine()

    def port_filters(self):
        """The port ids this deployment has a filter for on this host."""
        if not _uri_filters():
            return []
        head = self.resource_prefix() + _INFIX
        return sorted(f.name()[len(head):] for f in self._conn().listAllNWFilters()
                      if f.name().startswith(head))

    def sync_port_filters(self, states, removed=()):
        """Converge: each port of ``states`` filtered as it says, the filters of
        ``removed`` port ids gone."""
        for state in states:
            self.ensure_port_filter(state)
        for port_id in removed:
            self.delete_port_filter(port_id)
