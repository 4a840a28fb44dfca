"""Hosts: hypervisors the scheduler may place instances on.

A host exists once it reports its capacity (``report_capacity``, called by the host's
worker, or all-in-one right before each boot). Every report refreshes the host's
liveness; a host silent for ``[scheduler] host_down_time`` seconds is down.
"""

import datetime
import uuid

import sqlalchemy as sa

from provisioner.catalog import common
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import schemas
from provisioner import validation

KIND = 'Host'
_RATIOS = ('cpu_allocation_ratio', 'ram_allocation_ratio', 'disk_allocation_ratio')
_RATIO = {'type': 'number', 'exclusiveMinimum': 0, 'maximum': 1000,
          'errorMessage': '{label} must be above 0 and at most 1000, not {value}'}
UPDATE = schemas.request('host update', dict(
    {ratio: schemas.titled(_RATIO, ratio) for ratio in _RATIOS},
    enabled={'type': 'boolean', 'title': 'enabled',
             'errorMessage': 'enabled must be true or false, not {value!r}'},
    disabled_reason=schemas.titled(schemas.DESCRIPTION, 'disabled reason'),
    availability_zone=schemas.titled(schemas.NAME, 'availability zone')))


def report_capacity(name, capacity, availability_zone=None):
    """Insert or refresh a host's capacity and liveness; its usage (claims) is left alone.

    A new host gets the configured allocation ratios and availability zone; later
    reports keep what an operator set with ``host set``, unless a zone is given.
    """
    fields = {'vcpus': capacity['vcpus'], 'memory_mib': capacity['memory_mib'],
              'disk_gib': capacity['disk_gib'],
              'hypervisor_type': capacity['hypervisor_type'], 'arch': capacity['arch'],
              'updated_at': models.utcnow(),
              # Its L2 agent's tunnel address (None: none, or a worker of before).
              'underlay_ip': capacity.get('underlay_ip')}
    if availability_zone:
        fields['availability_zone'] = availability_zone
    with db_api.transaction() as session:
        host = session.execute(sa.select(models.Host)
                               .where(models.Host.name == name)).scalar()
        if host is None:
            fields.setdefault('availability_zone',
                              CONF.scheduler.default_availability_zone)
            for ratio in _RATIOS:
                fields[ratio] = getattr(CONF.scheduler, ratio)
            session.add(models.Host(id=str(uuid.uuid4()), name=name, **fields))
        else:
            for key, value in fields.items():
                setattr(host, key, value)


def down_cutoff():
    """Hosts whose last report is older than this are down."""
    return models.utcnow() - datetime.timedelta(seconds=CONF.scheduler.host_down_time)


def _describe(row, cutoff):
    info = common.to_dict(row)
    info['alive'] = row.updated_at >= cutoff and not row.forced_down
    info['vcpus_capacity'] = row.vcpus * row.cpu_allocation_ratio
    info['memory_mib_capacity'] = row.memory_mib * row.ram_allocation_ratio
    info['disk_gib_capacity'] = row.disk_gib * row.disk_allocation_ratio
    return info


def list_all():
    cutoff = down_cutoff()
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.Host).order_by(models.Host.name))
        return [_describe(row, cutoff) for row in rows.scalars()]


def show(name_or_id):
    with db_api.transaction() as session:
        return _describe(common.find(session, models.Host, name_or_id, KIND),
                         down_cutoff())


def update(name_or_id, enabled=None, disabled_reason=None, availability_zone=None,
           forced_down=None, **ratios):
    """Enable/disable a host, force it down (or no more), move it to a zone, or set
    its allocation ratios."""
    checked = validation.check(dict(ratios, enabled=enabled,
                                    disabled_reason=disabled_reason,
                                    availability_zone=availability_zone), UPDATE)
    values = {key: value for key, value in checked.items()
              if key not in ('enabled', 'disabled_reason')}
    if enabled is not None:
        values['enabled'] = enabled
        values['disabled_reason'] = None if enabled else disabled_reason
    if forced_down is not None:
        values['forced_down'] = bool(forced_down)
    with db_api.transaction() as session:
        row = common.find(session, models.Host, name_or_id, KIND)
        if values:
            session.execute(sa.update(models.Host).where(models.Host.id == row.id)
                            .values(**values, **KEEP_LIVENESS))
            session.refresh(row)
        return _describe(row, down_cutoff())


# updated_at is the last capacity report: an operator's change or a claim is not one,
# and must not make a dead host look alive (the column's onupdate would).
KEEP_LIVENESS = {'updated_at': models.Host.updated_at}
