"""Glance's metadata definitions: namespaces of objects, properties and tags that
say which metadata a resource type (an image, a flavor, a volume...) may carry.

A namespace is seen by everyone when public, by its owner's project (and admins)
when private; only admins make and change them (Glance's defaults). A protected
namespace cannot be deleted. Its parts live in one document per namespace.
"""

import copy

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy

# The resource types Glance knows (it loads them with its metadefs).
RESOURCE_TYPES = ('OS::Glance::Image', 'OS::Cinder::Volume', 'OS::Nova::Flavor',
                  'OS::Nova::Aggregate', 'OS::Nova::Server', 'OS::Trove::Instance',
                  'OS::Glance::Snapshot')
PARTS = ('objects', 'properties', 'tags', 'resource_type_associations')


def _empty():
    return {'objects': {}, 'properties': {}, 'tags': {},
            'resource_type_associations': {}}


def _row(session, context, namespace):
    row = session.get(models.MetadefNamespace, namespace)
    if row is None or not (row.visibility == 'public' or context.is_admin
                           or row.owner == context.project_id):
        raise exception.NotFound(kind='Metadata definition namespace', name=namespace)
    return row


def _dict(row):
    return {'namespace': row.namespace, 'display_name': row.display_name,
            'description': row.description, 'visibility': row.visibility,
            'protected': row.protected, 'owner': row.owner,
            'created_at': row.created_at, 'updated_at': row.updated_at,
            **copy.deepcopy(row.document)}


def _admin(context):
    policy.authorize(context, 'admin')


def list_namespaces(context):
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.MetadefNamespace).order_by(
            models.MetadefNamespace.namespace)).scalars()
        return [_dict(r) for r in rows if r.visibility == 'public' or context.is_admin
                or r.owner == context.project_id]


def show(context, namespace):
    with db_api.transaction() as session:
        return _dict(_row(session, context, namespace))


def create(context, namespace, fields, parts):
    """A new namespace (``fields``: display_name, description, visibility,
    protected, owner) with its first ``parts`` (PARTS: {name: definition})."""
    _admin(context)
    document = _empty()
    for part, found in parts.items():
        document[part].update(found)
    with db_api.transaction() as session:
        if session.get(models.MetadefNamespace, namespace) is not None:
            raise exception.Conflict(reason='Metadata definition namespace=%s already '
                                            'exists.' % namespace)
        row = models.MetadefNamespace(
            namespace=namespace, document=document,
            visibility=fields.get('visibility') or 'private',
            protected=bool(fields.get('protected')),
            owner=fields.get('owner') or context.project_id,
            display_name=fields.get('display_name'),
            description=fields.get('description'))
        session.add(row)
        session.flush()
        return _dict(row)


def update(context, namespace, fields):
    """Change the namespace's own fields (its name too)."""
    _admin(context)
    with db_api.transaction() as session:
        row = _row(session, context, namespace)
        new_name = fields.get('namespace') or namespace
        if new_name != namespace:
            if session.get(models.MetadefNamespace, new_name) is not None:
                raise exception.Conflict(reason='Metadata definition namespace=%s '
                                                'already exists.' % new_name)
            replacement = models.MetadefNamespace(
                namespace=new_name, document=row.document, owner=row.owner,
                visibility=row.visibility, protected=row.protected,
                created_at=row.created_at)
            session.delete(row)
            session.flush()
            session.add(replacement)
            row = replacement
        for key in ('display_name', 'description', 'visibility', 'protected', 'owner'):
            if key in fields:
                setattr(row, key, fields[key])
        row.updated_at = models.utcnow()
        session.flush()
        return _dict(row)


def delete(context, namespace):
    _admin(context)
    with db_api.transaction() as session:
        row = _row(session, context, namespace)
        if row.protected:
            raise exception.Forbidden(reason='Namespace %s is protected and cannot be '
                                             'deleted.' % namespace)
        session.delete(row)


def change_part(context, namespace, part, change):
    """Apply ``change(definitions)`` to one part ({name: definition}) of the
    namespace; its result is returned."""
    _admin(context)
    with db_api.transaction() as session:
        row = _row(session, context, namespace)
        document = copy.deepcopy(row.document)
        result = change(document[part])
        row.document = document
        row.updated_at = models.utcnow()
        return copy.deepcopy(result)
