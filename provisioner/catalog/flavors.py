"""Flavors: the vCPU, RAM and disk sizes an instance is booted with."""

import uuid

import sqlalchemy as sa

from provisioner.catalog import common
from provisioner.catalog import flavor_extras
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import schemas
from provisioner import validation

KIND = 'Flavor'


def create(name, vcpus, ram_mib, disk_gib, flavor_id=None, description=None,
           **extra):
    """A new flavor; its id is a new uuid unless one is given (Nova's API may).
    ``extra``: Nova's is_public, ephemeral_gib, swap_mib and rxtx_factor."""
    validation.check({'name': name, 'vcpus': vcpus, 'ram_mib': ram_mib,
                      'disk_gib': disk_gib}, schemas.FLAVOR_CREATE)
    return common.add_unique(models.Flavor(id=flavor_id or str(uuid.uuid4()), name=name,
                                           vcpus=vcpus, ram_mib=ram_mib,
                                           disk_gib=disk_gib, description=description,
                                           **extra),
                             KIND)


def _projects(session, flavor_id):
    return set(session.execute(sa.select(models.FlavorProject.project_id).where(
        models.FlavorProject.flavor_id == flavor_id)).scalars())


def usable(session, context, row):
    """Whether the caller sees (and may boot) the flavor: a public one, or a private
    one as admin or as a project on its access list."""
    return (row.is_public or context.is_admin
            or context.project_id in _projects(session, row.id))


def list_visible(context, is_public=True):
    """Nova's listing: ``is_public`` True, the public flavors and the private ones the
    caller's project may use; False, the private ones; None, all (both admin-only)."""
    with db_api.transaction() as session:
        granted = set(session.execute(sa.select(models.FlavorProject.flavor_id).where(
            models.FlavorProject.project_id == context.project_id)).scalars())
        rows = session.execute(sa.select(models.Flavor)
                               .order_by(models.Flavor.name)).scalars()
        found = [common.to_dict(r) for r in rows
                 if is_public is None or (r.is_public or r.id in granted
                                          if is_public else not r.is_public)]
    specs = flavor_extras.extra_specs_of([f['id'] for f in found])
    return [dict(f, extra_specs=specs[f['id']]) for f in found]


def show_visible(context, name_or_id):
    with db_api.transaction() as session:
        row = common.find(session, models.Flavor, name_or_id, KIND)
        if not usable(session, context, row):
            raise exception.NotFound(kind=KIND, name=name_or_id)
        found = common.to_dict(row)
    return dict(found, extra_specs=flavor_extras.extra_specs(found['id']))


def set_description(flavor_id, description):
    """Nova's PUT /flavors/{id} (2.55): the description is all that changes."""
    with db_api.transaction() as session:
        row = session.get(models.Flavor, flavor_id)
        if row is None:
            raise exception.NotFound(kind=KIND, name=flavor_id)
        row.description = description
        session.flush()
        return common.to_dict(row)


_catalog = common.Catalog(models.Flavor, KIND,
                          common.instances_using(models.Instance.flavor_id))
list_all = _catalog.list_all
show = _catalog.show
delete = _catalog.delete
