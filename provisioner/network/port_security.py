"""Neutron's port-security and allowed-address-pairs extensions, as a port's columns.

``port_security_enabled`` (default true): the host lets the port send only from its
MAC and fixed IP, and applies its security groups; off, the port is not filtered
and may carry no group. ``allowed_address_pairs``: more {'ip_address' (an address
or a CIDR), 'mac_address' (default: the port's)} the port may send from, only with
port security on. Neutron's refusals, in its words.
"""

import ipaddress
import re

from provisioner import exception

_MAC = re.compile(r'^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$')


class SecurityGroupsNeedPortSecurity(exception.Invalid):
    neutron_type = 'PortSecurityAndIPRequiredForSecurityGroups'
    msg_fmt = ('Port security must be enabled and port must have an IP address in '
               'order to use security groups.')


class PortHasSecurityGroup(exception.Conflict):
    neutron_type = 'PortSecurityPortHasSecurityGroup'
    msg_fmt = ('Port has security group associated. Cannot disable port security or '
               'IP address until security group is removed.')


class PairsNeedPortSecurity(exception.Conflict):
    neutron_type = 'AddressPairAndPortSecurityRequired'
    msg_fmt = ('Port Security must be enabled in order to have allowed address pairs '
               'on a port.')


class BadPair(exception.Invalid):
    neutron_type = 'InvalidInput'
    msg_fmt = 'Invalid input for allowed_address_pairs. Reason: %(reason)s'


def _pair(pair, mac):
    if not isinstance(pair, dict) or set(pair) - {'ip_address', 'mac_address'}:
        raise BadPair(reason='%r is not {"ip_address", "mac_address"?}.' % (pair,))
    if not pair.get('ip_address'):
        raise BadPair(reason='AllowedAddressPair must contain ip_address.')
    try:
        net = ipaddress.ip_network(str(pair['ip_address']), strict=False)
    except ValueError:
        raise BadPair(reason="'%s' is not a valid IP address or CIDR."
                             % pair['ip_address']) from None
    pair_mac = pair.get('mac_address') or mac
    if not isinstance(pair_mac, str) or not _MAC.match(pair_mac):
        raise BadPair(reason="'%s' is not a valid MAC address." % pair_mac)
    if net.version != 4:
        raise BadPair(reason="'%s': only IPv4 is supported here." % pair['ip_address'])
    return {'ip_address': str(pair['ip_address']), 'mac_address': pair_mac.lower()}


def pairs(value, mac):
    """The allowed address pairs asked for, checked (a MAC left out: the port's)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadPair(reason='give a list of {"ip_address", "mac_address"?}.')
    found = []
    for pair in value:
        checked = _pair(pair, mac)
        if checked in found:
            raise BadPair(reason='Request contains duplicate address pair: mac_address '
                                 '%(mac_address)s ip_address %(ip_address)s.' % checked)
        found.append(checked)
    return found


def check(enabled, groups, address_pairs):
    """Refuse groups or address pairs on a port without port security."""
    if enabled:
        return
    if groups:
        raise SecurityGroupsNeedPortSecurity()
    if address_pairs:
        raise PairsNeedPortSecurity()


def check_update(port, enabled, groups, held_groups, address_pairs):
    """An update's port security, groups and pairs (None: unchanged) together;
    ``held_groups``: the port's groups now."""
    enabled = port.port_security_enabled if enabled is None else bool(enabled)
    if not enabled:
        if (held_groups if groups is None else groups):
            if groups is None and port.port_security_enabled:
                raise PortHasSecurityGroup()
            raise SecurityGroupsNeedPortSecurity()
        if (port.allowed_address_pairs if address_pairs is None else address_pairs):
            raise PairsNeedPortSecurity()
    return enabled
