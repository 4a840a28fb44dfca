"""Nova's view of Neutron's security groups (its 2.1 proxy's shape): a group with
its ingress rules, each with ``ip_protocol``, ``from_port``/``to_port`` and a
source (``ip_range`` or ``group``)."""


def _ports(rule):
    protocol = rule['protocol']
    if protocol and rule['port_range_min'] is None and rule['port_range_max'] is None:
        return (1, 65535) if protocol.upper() in ('TCP', 'UDP') else (-1, -1)
    return rule['port_range_min'], rule['port_range_max']


def rule(found, names):
    """A rule; ``names`` maps group ids to {name, tenant_id} (its remote group's)."""
    from_port, to_port = _ports(found)
    remote = found['remote_group_id']
    return {'id': found['id'], 'parent_group_id': found['security_group_id'],
            'ip_protocol': found['protocol'], 'from_port': from_port, 'to_port': to_port,
            'group': names.get(remote, {}) if remote else {},
            'ip_range': {} if remote else {'cidr': found['remote_ip_prefix']
                                           or ('0.0.0.0/0' if found['ethertype'] == 'IPv4'
                                               else '::/0')}}


def security_group(group, names):
    return {'id': group['id'], 'name': group['name'],
            'description': group['description'], 'tenant_id': group['project_id'],
            'rules': [rule(r, names) for r in group['rules']
                      if r['direction'] == 'ingress']}


def security_groups(groups, known=()):
    """Nova's list body; ``known``: more groups remote rules may name."""
    names = {g['id']: {'name': g['name'], 'tenant_id': g['project_id']}
             for g in list(groups) + list(known)}
    return {'security_groups': [security_group(g, names) for g in groups]}
