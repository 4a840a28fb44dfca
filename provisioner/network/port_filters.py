"""What each bound port's host must filter: its security groups resolved for a host
that has no database (provisioner.virt.libvirt.port_filter says the format).

A rule's remote group becomes the addresses of the group's member ports (their
fixed IPs and allowed address pairs, as Neutron's), its remote_ip_prefix a one-CIDR
list, neither: None (anywhere).
"""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models


def _groups_of(session, port_ids):
    """{port id: [group id]}."""
    found = {port_id: [] for port_id in port_ids}
    for port_id, group_id in session.execute(
            sa.select(models.PortSecurityGroup.port_id,
                      models.PortSecurityGroup.security_group_id)
            .where(models.PortSecurityGroup.port_id.in_(port_ids))):
        found[port_id].append(group_id)
    return found


def _addresses(port):
    return ([port.ip] if port.ip else []) + [
        pair['ip_address'] for pair in port.allowed_address_pairs or []]


def _members(session, group_ids):
    """{group id: [address or CIDR of its member ports]}."""
    found = {group_id: [] for group_id in group_ids}
    for port, group_id in session.execute(
            sa.select(models.Port, models.PortSecurityGroup.security_group_id)
            .join(models.PortSecurityGroup,
                  models.PortSecurityGroup.port_id == models.Port.id)
            .where(models.PortSecurityGroup.security_group_id.in_(group_ids))
            .order_by(models.Port.ip)):
        found[group_id].extend(_addresses(port))
    return found


def _rules(session, group_ids):
    """The rules of the groups, in a stable order (each rule once)."""
    return session.execute(sa.select(models.SecurityGroupRule).where(
        models.SecurityGroupRule.security_group_id.in_(group_ids))
        .order_by(models.SecurityGroupRule.created_at,
                  models.SecurityGroupRule.id)).scalars().all()


def _rule_state(rule, members):
    if rule.remote_group_id:
        remote = sorted(set(members[rule.remote_group_id]))
    elif rule.remote_ip_prefix:
        remote = [rule.remote_ip_prefix]
    else:
        remote = None
    return {'direction': rule.direction, 'ethertype': rule.ethertype,
            'protocol': rule.protocol, 'port_range_min': rule.port_range_min,
            'port_range_max': rule.port_range_max, 'remote': remote}


def _states(session, ports):
    """{port id: state} of port rows."""
    groups = _groups_of(session, [port.id for port in ports])
    rules = {}
    for rule in _rules(session, {g for ids in groups.values() for g in ids}):
        rules.setdefault(rule.security_group_id, []).append(rule)
    members = _members(session, {rule.remote_group_id for found in rules.values()
                                 for rule in found if rule.remote_group_id})
    states = {}
    for port in ports:
        enabled = port.port_security_enabled
        states[port.id] = {
            'port_id': port.id, 'mac': port.mac, 'ips': [port.ip] if port.ip else [],
            'port_security': enabled,
            'allowed_address_pairs': list(port.allowed_address_pairs or []),
            'rules': [_rule_state(rule, members) for group_id in groups[port.id]
                      for rule in rules.get(group_id, ())] if enabled else []}
    return states


def with_filters(ports):
    """The ports (dicts with 'id') each with its 'security' state."""
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.Port).where(
            models.Port.id.in_([port['id'] for port in ports]))).scalars().all()
        states = _states(session, rows)
    return [dict(port, security=states[port['id']]) if port['id'] in states else port
            for port in ports]


def groups_of(port_ids):
    """The groups the ports carry now (their peers to tell when they change)."""
    with db_api.transaction() as session:
        return sorted({g for ids in _groups_of(session, port_ids).values()
                       for g in ids})


def plan(port_ids=(), group_ids=()):
    """{host: [state]} of the bound ports a change touches: ``port_ids``, the ports
    carrying one of ``group_ids`` (or a group of ``port_ids``), and the ports whose
    groups have a rule with one of those as remote group (their members changed)."""
    with db_api.transaction() as session:
        groups = set(group_ids) | {g for ids in _groups_of(session, list(port_ids))
                                   .values() for g in ids}
        referring = set(session.execute(
            sa.select(models.SecurityGroupRule.security_group_id).where(
                models.SecurityGroupRule.remote_group_id.in_(groups))).scalars())
        carrying = session.execute(sa.select(models.PortSecurityGroup.port_id).where(
            models.PortSecurityGroup.security_group_id.in_(groups | referring)))
        wanted = set(port_ids) | set(carrying.scalars())
        rows = session.execute(
            sa.select(models.Port, models.Instance.host)
            .join(models.Instance, models.Instance.id == models.Port.instance_id)
            .where(models.Port.id.in_(wanted), models.Instance.host.is_not(None))
            .order_by(models.Port.id)).all()
        states = _states(session, [port for port, _host in rows])
        hosts = {}
        for port, host in rows:
            hosts.setdefault(host, []).append(states[port.id])
        return hosts
