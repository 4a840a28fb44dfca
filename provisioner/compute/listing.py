"""Servers as the compute API shows them, read in bulk.

``ComputeAPI.show`` builds one instance from several queries; a list of a thousand
servers must not make a thousand times that. ``server_records`` reads the
instances, then their ports and volumes in one query each, whatever the count,
as plain rows of the columns it shows: no ORM objects to build (and collect), and
no user data read (2.3's admins get it for a page in one query, ``user_data``).
"""

import sqlalchemy as sa

from provisioner.catalog import hosts
from provisioner.compute import server_tags
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models


_INSTANCE_COLUMNS = ('id', 'name', 'project_id', 'user_id', 'vm_state', 'task_state',
                     'power_state', 'host', 'flavor_id', 'image_id', 'key_name',
                     'properties', 'request_spec', 'fault', 'created_at', 'updated_at',
                     'launched_at', 'access_ip_v4', 'access_ip_v6', 'locked_by',
                     'locked_reason', 'description', 'hostname', 'trusted_certs')


def _query(context, all_projects, filters):
    inst = models.Instance
    query = sa.select(*(getattr(inst, name) for name in _INSTANCE_COLUMNS),
                      inst.user_data.is_not(None).label('has_user_data')) \
        .where(inst.vm_state != states.DELETED)
    if not all_projects:
        query = query.where(inst.project_id == context.project_id)
    column_filters = {'project_id': inst.project_id, 'user_id': inst.user_id,
                      'host': inst.host, 'flavor_id': inst.flavor_id,
                      'image_id': inst.image_id, 'key_name': inst.key_name,
                      'id': inst.id}
    for key, value in filters.items():
        if key == 'vm_states':
            query = query.where(inst.vm_state.in_(value))
        elif key == 'changes_since':
            query = query.where(inst.updated_at >= value)
        elif key == 'changes_before':
            query = query.where(inst.updated_at <= value)
        elif key == 'tags':
            query = query.where(server_tags.matching(**value))
        elif key == 'locked':
            query = query.where(inst.locked_by.is_not(None) if value
                                else inst.locked_by.is_(None))
        elif key == 'ids':
            query = query.where(inst.id.in_(value))
        else:
            query = query.where(column_filters[key] == value)
    return query.order_by(inst.created_at.desc(), inst.id.desc())


def server_records(context, all_projects=False, **filters):
    """Instances (newest first) as dicts with their addresses and volumes.

    ``filters``: project_id, user_id, host, flavor_id, image_id, key_name, id,
    ids (a list), vm_states (a list), changes_since and changes_before (datetimes),
    locked (a bool), tags ({'all_of', 'any_of', 'not_all', 'not_any'}: lists).
    """
    with db_api.transaction() as session:
        rows = session.execute(_query(context, all_projects, filters)).all()
        records = [_record(row) for row in rows]
        by_id = {r['id']: r for r in records}
        if not by_id:
            return []
        port, net = models.Port, models.Network
        for instance_id, ip, mac, name, network_id in session.execute(
                sa.select(port.instance_id, port.ip, port.mac, net.name, net.id)
                .join(net, net.id == port.network_id)
                .where(port.instance_id.in_(by_id)).order_by(port.created_at)):
            by_id[instance_id]['addresses'].append(
                {'network': name, 'network_id': network_id, 'ip': ip, 'mac': mac})
        vol = models.Volume
        for volume_id, instance_id, size_gib, status, index in session.execute(
                sa.select(vol.id, vol.instance_id, vol.size_gib, vol.status, vol.index)
                .where(vol.instance_id.in_(by_id)).order_by(vol.index)):
            by_id[instance_id]['volumes'].append(
                {'id': volume_id, 'size_gib': size_gib, 'status': status,
                 'index': index})
        _add_flavors_groups_and_tags(session, records, by_id)
    return records


def _add_flavors_groups_and_tags(session, records, by_id):
    """What the views of 2.26 (tags), 2.47 (the flavor) and 2.71 (server groups)
    show, and the security groups its ports carry: one query each."""
    flavor = models.Flavor
    flavors = {row.id: {'name': row.name, 'vcpus': row.vcpus, 'ram': row.ram_mib,
                        'disk': row.disk_gib}
               for row in session.execute(sa.select(
                   flavor.id, flavor.name, flavor.vcpus, flavor.ram_mib, flavor.disk_gib)
                   .where(flavor.id.in_({r['flavor_id'] for r in records})))}
    for record in records:
        record['flavor'] = flavors.get(record['flavor_id'])
    member = models.ServerGroupMember
    for instance_id, group_id in session.execute(
            sa.select(member.instance_id, member.group_id)
            .where(member.instance_id.in_(by_id))):
        by_id[instance_id]['server_groups'].append(group_id)
    for instance_id, tags in server_tags.of(session, list(by_id)).items():
        by_id[instance_id]['tags'] = tags
    carried, group, port = models.PortSecurityGroup, models.SecurityGroup, models.Port
    for instance_id, name in session.execute(
            sa.select(port.instance_id, group.name).distinct()
            .join(carried, carried.port_id == port.id)
            .join(group, group.id == carried.security_group_id)
            .where(port.instance_id.in_(by_id)).order_by(group.name)):
        by_id[instance_id]['security_groups'].append(name)
    statuses = _host_statuses(session, {r['host'] for r in records if r['host']})
    for record in records:
        record['host_status'] = statuses.get(record['host'], 'UNKNOWN') \
            if record['host'] else ''


def _host_statuses(session, names):
    """Nova's host_status (2.16) of the named hosts: UP, DOWN (no report within
    host_down_time) or MAINTENANCE (disabled)."""
    if not names:
        return {}
    cutoff = hosts.down_cutoff()
    host = models.Host
    return {row.name: ('DOWN' if row.updated_at < cutoff else
                       'MAINTENANCE' if not row.enabled else 'UP')
            for row in session.execute(sa.select(host).where(host.name.in_(names)))
            .scalars()}


def _record(row):
    spec = row.request_spec or {}
    return {'id': row.id, 'name': row.name, 'project_id': row.project_id,
            'user_id': row.user_id, 'vm_state': row.vm_state,
            'task_state': row.task_state, 'power_state': row.power_state,
            'status': states.api_status(row.vm_state, row.task_state),
            'host': row.host, 'flavor_id': row.flavor_id, 'image_id': row.image_id,
            'key_name': row.key_name, 'metadata': dict(row.properties or {}),
            'availability_zone': spec.get('availability_zone'),
            'fault': row.fault, 'created_at': row.created_at,
            'updated_at': row.updated_at, 'launched_at': row.launched_at,
            'has_user_data': bool(row.has_user_data),
            'boot_from_volume': bool(spec.get('boot_volume')),
            'config_drive': spec.get('config_drive', True),
            'access_ip_v4': row.access_ip_v4, 'access_ip_v6': row.access_ip_v6,
            'locked_by': row.locked_by, 'locked_reason': row.locked_reason,
            'description': row.description, 'hostname': row.hostname,
            'trusted_certs': row.trusted_certs, 'server_groups': [], 'tags': [],
            'security_groups': [],
            'device_tags': spec.get('device_tags', {}),
            'reservation_id': spec.get('reservation_id'),
            'launch_index': spec.get('launch_index', 0),
            'addresses': [], 'volumes': []}


def user_data(ids):
    """{instance id: user data} of those of ``ids`` that have some, in one query."""
    if not ids:
        return {}
    inst = models.Instance
    with db_api.transaction() as session:
        return dict(session.execute(
            sa.select(inst.id, inst.user_data)
            .where(inst.id.in_(ids), inst.user_data.is_not(None))).all())
