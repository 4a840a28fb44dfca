"""Cinder's QoS specs, for admins: a name, a consumer (front-end, back-end or
both) and key/value specs, associated with volume types. They are recorded and
shown, not applied: the backend reports no QoS support (get_pools' QoS_support
false) and provisioner's guests get no I/O limits from them.
"""

import uuid

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy
from provisioner import schemas
from provisioner import validation
from provisioner.volume import types

CONSUMERS = ('front-end', 'back-end', 'both')
CREATE = schemas.request('qos specs', {
    'name': {'type': 'string', 'minLength': 1, 'maxLength': 255, 'pattern': '\\S',
             'errorMessage': 'QoS specs name must be 1-255 characters, not only '
                             'spaces: {value!r}'},
    'consumer': {'enum': list(CONSUMERS),
                 'errorMessage': 'consumer must be front-end, back-end or both, not '
                                 '{value!r}'},
    'specs': types.SPECS}, required=['name'])


def _describe(row):
    return {'id': row.id, 'name': row.name, 'consumer': row.consumer,
            'specs': dict(row.specs or {})}


class QosAPI:
    def __init__(self, context):
        self.context = context
        policy.authorize(context, types.MANAGE)

    def _get(self, session, qos_id):
        row = session.get(models.QosSpecs, qos_id)
        if row is None:
            raise exception.NotFound(kind='QoS specs', name=qos_id)
        return row

    def _types(self, session, qos_id):
        return list(session.scalars(sa.select(models.VolumeType).where(
            models.VolumeType.qos_specs_id == qos_id)))

    def list(self):
        with db_api.transaction() as session:
            return [_describe(row) for row in session.scalars(
                sa.select(models.QosSpecs).order_by(models.QosSpecs.created_at))]

    def show(self, qos_id):
        with db_api.transaction() as session:
            return _describe(self._get(session, qos_id))

    def create(self, name, consumer='back-end', **specs):
        validation.check({'name': name, 'consumer': consumer, 'specs': specs}, CREATE)
        with db_api.transaction() as session:
            if session.scalars(sa.select(models.QosSpecs.id).where(
                    models.QosSpecs.name == name)).first() is not None:
                raise exception.Conflict(reason='QoS Specs %s already exists.' % name)
            row = models.QosSpecs(id=str(uuid.uuid4()), name=name, consumer=consumer,
                                  specs={k: str(v) for k, v in specs.items()})
            session.add(row)
            session.flush()
            return _describe(row)

    def delete(self, qos_id, force=False):
        with db_api.transaction() as session:
            row = self._get(session, qos_id)
            associated = self._types(session, qos_id)
            if associated and not force:
                raise exception.Invalid(reason='QoS Specs %s is still associated with '
                                               'entities.' % qos_id)
            for volume_type in associated:
                volume_type.qos_specs_id = None
            session.delete(row)

    def set_keys(self, qos_id, specs):
        validation.check({'name': 'x', 'specs': specs}, CREATE)
        specs = {k: str(v) for k, v in specs.items()}
        with db_api.transaction() as session:
            row = self._get(session, qos_id)
            row.specs = dict(row.specs or {}, **specs)
            return specs

    def unset_keys(self, qos_id, keys):
        with db_api.transaction() as session:
            row = self._get(session, qos_id)
            found = dict(row.specs or {})
            missing = [key for key in keys if key not in found]
            if missing:
                raise exception.NotFound(kind='QoS spec key', name=missing[0])
            row.specs = {k: v for k, v in found.items() if k not in keys}

    def associations(self, qos_id):
        with db_api.transaction() as session:
            self._get(session, qos_id)
            return [{'association_type': 'volume_type', 'name': t.name, 'id': t.id}
                    for t in self._types(session, qos_id)]

    def associate(self, qos_id, type_id, associate=True):
        with db_api.transaction() as session:
            self._get(session, qos_id)
            volume_type = types.lookup(self.context, session, type_id or '')
            if associate and volume_type.qos_specs_id not in (None, qos_id):
                raise exception.Invalid(reason='Type %s is already associated with '
                                               'another qos specs: %s'
                                        % (type_id, volume_type.qos_specs_id))
            if associate or volume_type.qos_specs_id == qos_id:
                volume_type.qos_specs_id = qos_id if associate else None

    def disassociate_all(self, qos_id):
        with db_api.transaction() as session:
            self._get(session, qos_id)
            for volume_type in self._types(session, qos_id):
                volume_type.qos_specs_id = None
