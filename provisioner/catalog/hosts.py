"""Hosts: hypervisors the scheduler may place instances on."""

import uuid

import sqlalchemy as sa

from provisioner.catalog import common
from provisioner.db import api as db_api
from provisioner.db import models

KIND = 'Host'


def report_capacity(name, capacity):
    """Insert or refresh a host's capacity; its usage (claims) is left alone."""
    fields = {'vcpus': capacity['vcpus'], 'memory_mib': capacity['memory_mib'],
              'disk_gib': capacity['disk_gib'],
              'hypervisor_type': capacity['hypervisor_type'], 'arch': capacity['arch'],
              'updated_at': models.utcnow()}
    with db_api.transaction() as session:
        host = session.execute(sa.select(models.Host)
                               .where(models.Host.name == name)).scalar()
        if host is None:
            session.add(models.Host(id=str(uuid.uuid4()), name=name, **fields))
        else:
            for key, value in fields.items():
                setattr(host, key, value)


def list_all():
    return common.list_all(models.Host)


def show(name_or_id):
    return common.show(models.Host, name_or_id, KIND)
