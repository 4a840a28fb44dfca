"""Keystone's regions, services and endpoints an admin adds to the catalog.

provisioner's own services (identity, compute, image, network, block-storage) are
in every catalog with the URL the request came in by; they are listed here too,
read-only. A service or endpoint an admin adds appears in the catalog of every
token issued after (its enabled endpoints).
"""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import records
from provisioner import policy

INTERFACES = ('public', 'internal', 'admin')


def create_region(context, region_id=None, description=None, parent_region_id=None):
    policy.authorize(context, 'identity:create_region')
    with db_api.transaction() as session:
        if parent_region_id is not None:
            records.get(session, models.Region, parent_region_id, 'Region')
        region = models.Region(id=region_id or records.new_id(),
                               description=description,
                               parent_region_id=parent_region_id)
        return records.as_dict(records.insert(session, region, 'Region', region.id))


def update_region(context, region_id, changes):
    def check(session, row, changes):
        parent = changes.get('parent_region_id')
        if parent is not None:
            records.get(session, models.Region, parent, 'Region')
            if parent == row.id:
                raise exception.Invalid(reason='a region cannot be its own parent')
    return records.update(context, 'identity:update_region', models.Region, region_id,
                          'Region', changes, check)


def delete_region(context, region_id):
    def before(session, row):
        children = session.execute(sa.select(models.Region.id).where(
            models.Region.parent_region_id == row.id)).first()
        if children is not None:
            raise exception.Forbidden(reason='region %s has child regions' % row.id)
        session.execute(sa.update(models.Endpoint).where(
            models.Endpoint.region_id == row.id).values(region_id=None))
    records.delete(context, 'identity:delete_region', models.Region, region_id,
                   'Region', before)


def create_service(context, kind, name=None, description=None, enabled=True):
    policy.authorize(context, 'identity:create_service')
    with db_api.transaction() as session:
        service = models.Service(id=records.new_id(), type=kind, name=name,
                                 description=description, enabled=enabled)
        session.add(service)
        return records.as_dict(service)


def delete_service(context, service_id):
    """Its endpoints go with it, as Keystone's."""
    records.delete(context, 'identity:delete_service', models.Service, service_id,
                   'Service', lambda session, row: session.execute(
                       sa.delete(models.Endpoint).where(
                           models.Endpoint.service_id == row.id)))


def _check_endpoint(session, changes):
    if changes.get('service_id') is not None:
        try:
            records.get(session, models.Service, changes['service_id'], 'Service')
        except exception.NotFound as e:
            raise exception.Invalid(reason=str(e)) from None
    region_id = changes.get('region_id')
    if region_id is not None and session.get(models.Region, region_id) is None:
        # Keystone's: an endpoint's region that does not exist yet is made.
        session.add(models.Region(id=region_id))


def create_endpoint(context, values):
    policy.authorize(context, 'identity:create_endpoint')
    with db_api.transaction() as session:
        _check_endpoint(session, values)
        endpoint = models.Endpoint(id=records.new_id(),
                                   **records.columns(models.Endpoint, values))
        session.add(endpoint)
        return records.as_dict(endpoint)


def update_endpoint(context, endpoint_id, changes):
    return records.update(context, 'identity:update_endpoint', models.Endpoint,
                          endpoint_id, 'Endpoint', changes,
                          lambda session, row, changes: _check_endpoint(session, changes))


def catalog_entries():
    """[(service, [its enabled endpoints])] of the enabled services an admin added."""
    with db_api.transaction() as session:
        services = {s.id: (records.as_dict(s), []) for s in session.execute(
            sa.select(models.Service).where(models.Service.enabled)).scalars()}
        for endpoint in session.execute(sa.select(models.Endpoint).where(
                models.Endpoint.enabled)).scalars():
            if endpoint.service_id in services:
                services[endpoint.service_id][1].append(records.as_dict(endpoint))
    return list(services.values())


show_region, list_regions, _, _ = records.operations(models.Region, 'Region', 'region',
                                                    'regions')
show_service, list_services, update_service, _ = records.operations(
    models.Service, 'Service', 'service', 'services')
show_endpoint, list_endpoints, _, delete_endpoint = records.operations(
    models.Endpoint, 'Endpoint', 'endpoint', 'endpoints')
