"""Subnet pools (Neutron's subnet_allocation extension) on behalf of one caller.

A pool is a set of IPv4 prefixes a subnet's range is carved from: a subnet asked for
with ``subnetpool_id`` and a prefix length gets the lowest free range of that length
in the pool (one a CIDR names must lie in the pool). Ranges taken by any subnet are
not handed out (Neutron counts only the pool's own: this is the stricter choice).
Defaults as Neutron's: ``min_prefixlen`` 8, ``max_prefixlen`` 32, ``default_prefixlen``
the minimum; ``default_quota`` bounds the addresses one project's subnets take of it.
"""

import ipaddress
import uuid

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import service
from provisioner import policy
from provisioner import schemas
from provisioner import validation

POOL = schemas.request('subnet pool', {
    'name': schemas.titled(dict(service.NAME, minLength=1, errorMessage=dict(
        service.NAME['errorMessage'], minLength='{label} must not be empty')),
        'subnet pool name'),
    'description': schemas.titled(schemas.DESCRIPTION, 'description')})
DEFAULT_MIN_PREFIXLEN = 8
MAX_PREFIXLEN = 32


class SubnetPoolNotFound(exception.NotFound):
    neutron_type = 'SubnetPoolNotFound'
    msg_fmt = 'Subnet pool %(name)s could not be found.'


class SubnetPoolInUse(exception.Conflict):
    neutron_type = 'SubnetPoolInUse'


class SubnetAllocationError(exception.Conflict):
    neutron_type = 'SubnetAllocationError'


class SubnetPoolQuotaExceeded(exception.Conflict):
    neutron_type = 'SubnetPoolQuotaExceeded'
    msg_fmt = 'Per-tenant subnet pool prefix quota exceeded.'


def _invalid(message):
    return exception.Invalid(reason='Invalid input for operation: %s' % message)


def visible(context, pool):
    return context.is_admin or pool.shared or pool.project_id == context.project_id


def _row(session, context, pool_id):
    pool = session.get(models.SubnetPool, pool_id)
    if pool is None or not visible(context, pool):
        raise SubnetPoolNotFound(name=pool_id)
    return pool


def _pool_dict(pool):
    return {key: getattr(pool, key) for key in (
        'id', 'project_id', 'name', 'description', 'prefixes', 'min_prefixlen',
        'max_prefixlen', 'default_prefixlen', 'default_quota', 'shared', 'is_default',
        'created_at')}


def _prefixes(values):
    """The prefixes as one sorted, merged list of IPv4 CIDR strings; Invalid else."""
    if not isinstance(values, list) or not values:
        raise _invalid('prefixes must be a non-empty list of CIDRs.')
    found = []
    for value in values:
        try:
            network = ipaddress.ip_network(str(value), strict=False)
        except ValueError:
            raise _invalid("'%s' is not a valid IP subnet." % value) from None
        if network.version != 4:
            raise _invalid('%s: only IPv4 prefixes are served here (subnets are '
                           'IPv4).' % value)
        found.append(network)
    return [str(n) for n in ipaddress.collapse_addresses(found)]


def _int(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise _invalid("'%s' is not an integer for %s." % (value, name))
    try:
        return int(value)
    except ValueError:
        raise _invalid("'%s' is not an integer for %s." % (value, name)) from None


def _bounds(minimum, default, maximum):
    if not 0 <= minimum <= default <= maximum <= MAX_PREFIXLEN:
        raise _invalid('Illegal prefix bounds: min_prefixlen=%d, default_prefixlen=%d, '
                       'max_prefixlen=%d (need 0 <= min <= default <= max <= %d).'
                       % (minimum, default, maximum, MAX_PREFIXLEN))


def _check_default(session, pool):
    """One default pool at a time (Neutron's, per address family)."""
    others = session.execute(sa.select(models.SubnetPool.id).where(
        models.SubnetPool.is_default.is_(True), models.SubnetPool.id != pool.id)).first()
    if pool.is_default and others:
        raise exception.Conflict(reason='A default subnetpool for this IP family has '
                                        'already been set: %s.' % others[0])


def list_pools(context):
    policy.authorize(context, 'subnetpool:list')
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.SubnetPool)
                               .order_by(models.SubnetPool.created_at)).scalars()
        return [_pool_dict(p) for p in rows if visible(context, p)]


def show_pool(context, pool_id):
    policy.authorize(context, 'subnetpool:show')
    with db_api.transaction() as session:
        return _pool_dict(_row(session, context, pool_id))


def create_pool(context, name, prefixes, description='', min_prefixlen=None,
                default_prefixlen=None, max_prefixlen=None, default_quota=None,
                shared=False, is_default=False, project_id=None):
    validation.check({'name': name, 'description': description}, POOL)
    project_id = project_id or context.project_id
    target = {'project_id': project_id}
    policy.authorize(context, 'subnetpool:create', target)
    if shared:
        policy.authorize(context, 'subnetpool:create:shared', target)
    if is_default:
        policy.authorize(context, 'subnetpool:create:is_default', target)
    minimum = _int('min_prefixlen', DEFAULT_MIN_PREFIXLEN if min_prefixlen is None
                   else min_prefixlen)
    maximum = _int('max_prefixlen', MAX_PREFIXLEN if max_prefixlen is None
                   else max_prefixlen)
    default = _int('default_prefixlen', minimum if default_prefixlen is None
                   else default_prefixlen)
    _bounds(minimum, default, maximum)
    pool = models.SubnetPool(
        id=str(uuid.uuid4()), project_id=project_id, name=name,
        description=description or '', prefixes=_prefixes(prefixes),
        min_prefixlen=minimum, max_prefixlen=maximum, default_prefixlen=default,
        default_quota=None if default_quota is None else _int('default_quota',
                                                              default_quota),
        shared=bool(shared), is_default=bool(is_default))
    with db_api.transaction() as session:
        _check_default(session, pool)
        session.add(pool)
        session.flush()
        return _pool_dict(pool)


def update_pool(context, pool_id, changes):
    """Change what ``changes`` names (name, description, prefixes, the prefix
    lengths, default_quota, is_default). Prefixes only grow: a subnet may use them."""
    if 'name' in changes or 'description' in changes:
        validation.check({'name': changes.get('name', 'unchanged'),
                          'description': changes.get('description') or ''}, POOL)
    with db_api.transaction() as session:
        pool = _row(session, context, pool_id)
        policy.authorize(context, 'subnetpool:update', {'project_id': pool.project_id})
        if changes.get('is_default'):
            policy.authorize(context, 'subnetpool:create:is_default',
                             {'project_id': pool.project_id})
        if 'prefixes' in changes:
            wanted = _prefixes(changes['prefixes'])
            kept = [ipaddress.ip_network(p) for p in wanted]
            for old in pool.prefixes:
                if not any(ipaddress.ip_network(old).subnet_of(new) for new in kept):
                    raise _invalid('Illegal update to prefixes: %s is no longer in the '
                                   'pool; prefixes of a subnet pool can only grow.' % old)
            pool.prefixes = wanted
        lengths = {key: _int(key, changes[key]) for key in (
            'min_prefixlen', 'default_prefixlen', 'max_prefixlen') if key in changes}
        merged = dict({k: getattr(pool, k) for k in ('min_prefixlen', 'default_prefixlen',
                                                     'max_prefixlen')}, **lengths)
        _bounds(merged['min_prefixlen'], merged['default_prefixlen'],
                merged['max_prefixlen'])
        for key, value in lengths.items():
            setattr(pool, key, value)
        if 'default_quota' in changes:
            pool.default_quota = (None if changes['default_quota'] is None
                                  else _int('default_quota', changes['default_quota']))
        for key in ('name', 'description'):
            if key in changes:
                setattr(pool, key, changes[key] or '')
        if 'is_default' in changes:
            pool.is_default = bool(changes['is_default'])
            _check_default(session, pool)
        session.flush()
        return _pool_dict(pool)


def delete_pool(context, pool_id):
    with db_api.transaction() as session:
        pool = _row(session, context, pool_id)
        policy.authorize(context, 'subnetpool:delete', {'project_id': pool.project_id})
        used = session.execute(sa.select(sa.func.count()).select_from(models.Subnet)
                               .where(models.Subnet.subnetpool_id == pool.id)).scalar()
        if used:
            raise SubnetPoolInUse(reason='Unable to complete operation on subnet pool '
                                         '%s: %d subnet(s) are allocated from it.'
                                         % (pool_id, used))
        session.delete(pool)


# -- allocation ------------------------------------------------------------------

def _taken(session):
    return sorted(ipaddress.ip_network(cidr) for cidr, in session.execute(
        sa.select(models.Subnet.cidr)))


def _lowest_free(prefix, prefixlen, taken):
    """The lowest range of ``prefixlen`` in ``prefix`` overlapping none of ``taken``
    (sorted), stepping past each range in the way; None if there is none."""
    if prefixlen < prefix.prefixlen:
        return None
    size = 2 ** (MAX_PREFIXLEN - prefixlen)
    start = int(prefix.network_address)
    end = int(prefix.broadcast_address)
    while start + size - 1 <= end:
        candidate = ipaddress.ip_network((start, prefixlen))
        blocking = [t for t in taken if t.overlaps(candidate)]
        if not blocking:
            return candidate
        past = max(int(t.broadcast_address) for t in blocking) + 1
        start = -(-past // size) * size  # the next boundary of a range this long
    return None


def _check_quota(session, pool, project_id, wanted):
    if pool.default_quota is None:
        return
    used = sum(ipaddress.ip_network(cidr).num_addresses for cidr, in session.execute(
        sa.select(models.Subnet.cidr)
        .join(models.Network, models.Network.id == models.Subnet.network_id)
        .where(models.Subnet.subnetpool_id == pool.id,
               models.Network.project_id == project_id)))
    if used + wanted.num_addresses > pool.default_quota:
        raise SubnetPoolQuotaExceeded()


def allocate(context, network_project_id, pool_id=None, prefixlen=None, cidr=None):
    """The CIDR a subnet of the pool gets (``pool_id``, or the default pool when
    None): ``cidr`` checked to lie in the pool, else the lowest free range of
    ``prefixlen`` (default: the pool's). (pool id, CIDR string)."""
    with db_api.transaction() as session:
        if pool_id is None:
            pool = session.execute(sa.select(models.SubnetPool).where(
                models.SubnetPool.is_default.is_(True))).scalar()
            if pool is None or not visible(context, pool):
                raise _invalid('No default subnetpool found for IPv4.')
        else:
            pool = _row(session, context, pool_id)
        prefixes = [ipaddress.ip_network(p) for p in pool.prefixes]
        if cidr is not None:
            try:
                wanted = ipaddress.ip_network(str(cidr), strict=False)
            except ValueError:
                raise _invalid("'%s' is not a valid IP subnet." % cidr) from None
            if not any(wanted.version == p.version and wanted.subnet_of(p)
                       for p in prefixes):
                raise _invalid('Cidr %s is not within the subnet pool %s.'
                               % (wanted, pool.id))
            length = wanted.prefixlen
        else:
            length = _int('prefixlen', pool.default_prefixlen if prefixlen is None
                          else prefixlen)
        if not pool.min_prefixlen <= length <= pool.max_prefixlen:
            raise _invalid('Illegal prefix length %d: the pool allows %d to %d.'
                           % (length, pool.min_prefixlen, pool.max_prefixlen))
        if cidr is None:
            taken = _taken(session)
            wanted = next((found for found in (_lowest_free(p, length, taken)
                                               for p in prefixes) if found), None)
            if wanted is None:
                raise SubnetAllocationError(
                    reason='Failed to allocate subnet: Insufficient prefix space to '
                           'allocate subnet size /%d.' % length)
        _check_quota(session, pool, network_project_id, wanted)
        return pool.id, str(wanted)
