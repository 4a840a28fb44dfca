"""Cinder's volume types: a name, a description, extra specs, public or private
(seen and used by admins and the projects of its access list), and an encryption
spec. Admins manage them (``volume:manage_types``); anyone lists and shows the
types they may use. A volume records its type (none: Cinder's default, null).

provisioner's volumes are files on a host whatever their type: extra specs are
recorded and shown, not acted on; a volume of an encrypted type is refused (the
volumes are not encrypted), and a retype changes the type recorded, without
moving bytes (Cinder's retype needing no migration).
"""

import uuid

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy
from provisioner import schemas
from provisioner import validation
from provisioner.volume import rules

MANAGE = 'volume:manage_types'
_KEY = schemas.whole('[A-Za-z0-9_:. /-]{1,255}')
SPECS = {'type': 'object', 'maxProperties': schemas.MAX_PROPERTIES,
         'propertyNames': {'pattern': _KEY, 'errorMessage': 'extra spec key {value!r} '
                           "must be 1-255 letters, digits, '-', '_', ':', '.', ' ' "
                           "or '/'"},
         'additionalProperties': {'type': ['string', 'integer', 'number', 'boolean'],
                                  'errorMessage': 'extra spec {key} must be a string, '
                                                  'not {value!r}'},
         'errorMessage': {'type': 'extra_specs must be an object of key/value pairs'}}
_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255, 'pattern': '\\S',
         'errorMessage': 'a volume type name must be 1-255 characters, not only '
                         'spaces: {value!r}'}
_DESCRIPTION = {'type': ['string', 'null'], 'maxLength': 255,
                'errorMessage': 'description must be a string of at most 255 '
                                'characters'}
_PUBLIC = {'type': 'boolean', 'errorMessage': 'is_public must be true or false, '
                                              'not {value!r}'}
CREATE = schemas.request('volume type', {
    'name': _NAME, 'description': _DESCRIPTION, 'is_public': _PUBLIC,
    'extra_specs': SPECS}, required=['name'])
UPDATE = schemas.request('volume type', {
    'name': _NAME, 'description': _DESCRIPTION, 'is_public': _PUBLIC})
ENCRYPTION = schemas.request('encryption', {
    'provider': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                 'errorMessage': 'provider must be a class name'},
    'cipher': {'type': ['string', 'null'], 'maxLength': 255},
    'key_size': {'type': ['integer', 'null'], 'minimum': 0,
                 'errorMessage': 'key_size must be a positive integer'},
    'control_location': {'enum': ['front-end', 'back-end'],
                         'errorMessage': "control_location must be 'front-end' or "
                                         "'back-end', not {value!r}"}})


def _text(specs):
    return {key: str(value) for key, value in specs.items()}


def describe(row):
    return {'id': row.id, 'name': row.name, 'description': row.description,
            'is_public': row.is_public, 'extra_specs': dict(row.extra_specs or {}),
            'projects': list(row.projects or []), 'encryption': row.encryption}


def visible(context, row):
    return row.is_public or context.is_admin or \
        context.project_id in (row.projects or [])


def lookup(context, session, ref, manage=False):
    """The type of id or name ``ref`` the caller may see (404 otherwise)."""
    row = session.get(models.VolumeType, ref)
    if row is None:
        row = session.scalars(sa.select(models.VolumeType)
                              .where(models.VolumeType.name == ref)).first()
    if row is None or not visible(context, row):
        raise exception.NotFound(kind='Volume type', name=ref)
    if manage:
        policy.authorize(context, MANAGE)
    return row


def for_volume(context, session, ref):
    """The id of the type (id or name) a new volume is made of; None for none."""
    if not ref:
        return None
    row = lookup(context, session, ref)
    if row.encryption is not None:
        raise exception.Invalid(reason='Volume type %s is encrypted; provisioner '
                                       'does not encrypt volumes.' % row.name)
    return row.id


def retype(context, volume_id, new_type, migration_policy=None):
    """Cinder's os-retype of an available or in-use volume, needing no migration:
    the type recorded changes (the file stays where it is)."""
    if migration_policy not in (None, 'never', 'on-demand'):
        raise exception.Invalid(reason="migration_policy must be 'never' or "
                                       "'on-demand', not %r" % migration_policy)
    if not isinstance(new_type, str) or not new_type:
        raise exception.Invalid(reason='New volume type must be specified.')
    with db_api.transaction() as session:
        row = rules.get_volume(context, session, volume_id, 'volume:update')
        type_id = for_volume(context, session, new_type)
        if row.status not in (rules.AVAILABLE, rules.IN_USE):
            raise exception.InvalidVolume(
                reason='Volume status must be available or in-use to retype, but '
                       'current status is: %s.' % row.status)
        if type_id == row.volume_type_id:
            raise exception.Invalid(reason='New volume type must be different from '
                                           'the current one.')
        row.volume_type_id, row.updated_at = type_id, models.utcnow()


class TypeAPI:
    """Volume types as a user may see them and an admin manage them."""

    def __init__(self, context):
        self.context = context

    def list(self, is_public=None):
        """The types the caller may use; an admin's ``is_public`` filter: None all,
        True public ones, False private ones."""
        with db_api.transaction() as session:
            rows = session.scalars(sa.select(models.VolumeType)
                                   .order_by(models.VolumeType.created_at))
            return [describe(row) for row in rows if visible(self.context, row)
                    and (is_public is None or not self.context.is_admin
                         or row.is_public == is_public)]

    def show(self, ref):
        with db_api.transaction() as session:
            return describe(lookup(self.context, session, ref))

    def create(self, name, description=None, is_public=True, extra_specs=None):
        policy.authorize(self.context, MANAGE)
        fields = {'name': name, 'description': description, 'is_public': is_public,
                  'extra_specs': extra_specs}
        validation.check(fields, CREATE, none_is_absent=True)
        with db_api.transaction() as session:
            self._unique(session, name)
            row = models.VolumeType(
                id=str(uuid.uuid4()), name=name.strip(), description=description,
                is_public=True if is_public is None else is_public,
                extra_specs=_text(extra_specs or {}), projects=[])
            session.add(row)
            session.flush()
            return describe(row)

    def _unique(self, session, name, but=None):
        taken = session.scalars(sa.select(models.VolumeType.id).where(
            models.VolumeType.name == name.strip())).first()
        if taken is not None and taken != but:
            raise exception.Conflict(reason='Volume Type %s already exists.' % name)

    def update(self, ref, **fields):
        validation.check(fields, UPDATE)
        with db_api.transaction() as session:
            row = lookup(self.context, session, ref, manage=True)
            if 'name' in fields:
                self._unique(session, fields['name'], but=row.id)
                row.name = fields['name'].strip()
            for key in ('description', 'is_public'):
                if key in fields:
                    setattr(row, key, fields[key])
            row.updated_at = models.utcnow()
            return describe(row)

    def delete(self, ref):
        with db_api.transaction() as session:
            row = lookup(self.context, session, ref, manage=True)
            used = session.scalars(sa.select(models.Volume.id).where(
                models.Volume.volume_type_id == row.id)).first()
            if used is not None:
                raise exception.Invalid(reason='Target volume type is still in use.')
            session.delete(row)

    # -- extra specs -------------------------------------------------------------

    def _set_specs(self, ref, change):
        with db_api.transaction() as session:
            row = lookup(self.context, session, ref, manage=True)
            specs = change(dict(row.extra_specs or {}))
            validation.check({'extra_specs': specs}, schemas.request(
                'volume type', {'extra_specs': SPECS}))
            row.extra_specs, row.updated_at = specs, models.utcnow()
            return specs

    def set_specs(self, ref, specs):
        """Add or change extra specs; the ones given, as text."""
        validation.check({'extra_specs': specs}, schemas.request(
            'volume type', {'extra_specs': SPECS}, required=['extra_specs']),
            none_is_absent=False)
        self._set_specs(ref, lambda found: dict(found, **_text(specs)))
        return _text(specs)

    def delete_spec(self, ref, key):
        def change(found):
            if key not in found:
                raise exception.NotFound(kind='Volume Type extra spec', name=key)
            del found[key]
            return found
        self._set_specs(ref, change)

    # -- access (private types) ----------------------------------------------------

    def access(self, ref):
        with db_api.transaction() as session:
            row = lookup(self.context, session, ref, manage=True)
            if row.is_public:
                raise exception.NotFound(
                    kind='Volume type access', name='of public type %s' % ref)
            return list(row.projects or [])

    def set_access(self, ref, project_id, add):
        with db_api.transaction() as session:
            row = lookup(self.context, session, ref, manage=True)
            if row.is_public:
                raise exception.Invalid(reason='Invalid volume type: Type access '
                                               'modification is not applicable to '
                                               'public volume type.')
            projects = list(row.projects or [])
            if add == (project_id in projects):
                if add:
                    raise exception.Conflict(
                        reason='Volume type access for %s / %s combination already '
                               'exists.' % (row.id, project_id))
                raise exception.NotFound(kind='Volume type access',
                                         name='%s / %s' % (row.id, project_id))
            row.projects = projects + [project_id] if add else \
                [p for p in projects if p != project_id]

    # -- encryption ------------------------------------------------------------------

    def encryption(self, ref):
        with db_api.transaction() as session:
            return lookup(self.context, session, ref, manage=True).encryption

    def set_encryption(self, ref, spec, create):
        validation.check(spec, ENCRYPTION)
        with db_api.transaction() as session:
            row = lookup(self.context, session, ref, manage=True)
            if create == (row.encryption is not None):
                if create:
                    raise exception.Conflict(reason='Volume type encryption for type '
                                                    '%s already exists.' % row.id)
                raise exception.NotFound(kind='Volume type encryption',
                                         name='for type %s' % row.id)
            self._unused(session, row)
            found = dict(row.encryption or {'volume_type_id': row.id,
                                            'encryption_id': str(uuid.uuid4()),
                                            'cipher': None, 'key_size': None,
                                            'control_location': 'front-end'})
            found.update(spec)
            row.encryption = found
            return found

    def delete_encryption(self, ref):
        with db_api.transaction() as session:
            row = lookup(self.context, session, ref, manage=True)
            if row.encryption is None:
                raise exception.NotFound(kind='Volume type encryption',
                                         name='for type %s' % row.id)
            self._unused(session, row)
            row.encryption = None

    def _unused(self, session, row):
        if session.scalars(sa.select(models.Volume.id).where(
                models.Volume.volume_type_id == row.id)).first() is not None:
            raise exception.Invalid(reason='Cannot change encryption of volume type '
                                           '%s: volumes of it exist.' % row.id)
