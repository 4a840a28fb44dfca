"""Keystone's credentials (a user's blob: an EC2 key pair, a TOTP secret...) and
stored policies (blobs served, not enforced). A blob is a secret: it is answered to
its owner and admins, never logged."""

import hashlib
import json

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import records
from provisioner import policy

KIND = 'Credential'


def _ec2_id(values):
    """Keystone's: an ec2 credential's id is the SHA-256 of its access key, and it
    needs a project."""
    if values.get('type') != 'ec2':
        return None
    try:
        access = json.loads(values['blob'])['access']
    except (ValueError, TypeError, KeyError):
        raise exception.Invalid(reason='an ec2 credential\'s blob is JSON with an '
                                       '"access" key') from None
    if not values.get('project_id'):
        raise exception.Invalid(reason='an ec2 credential needs a project_id')
    return hashlib.sha256(str(access).encode()).hexdigest()


def create_credential(context, values):
    policy.authorize(context, 'identity:create_credential',
                     {'user_id': values['user_id']})
    with db_api.transaction() as session:
        records.get(session, models.User, values['user_id'], 'User')
        credential = models.Credential(id=_ec2_id(values) or records.new_id(), **values)
        return records.as_dict(records.insert(session, credential, KIND,
                                              credential.id))


def _owned(context, action, credential_id):
    with db_api.transaction() as session:
        row = records.get(session, models.Credential, credential_id, KIND)
        if not policy.check(context, action, {'user_id': row.user_id}):
            raise exception.NotFound(kind=KIND, name=credential_id)
        return records.as_dict(row)


def show_credential(context, credential_id):
    return _owned(context, 'identity:get_credential', credential_id)


def list_credentials(context, user_id=None, kind=None):
    """An admin's: every one (filtered); a user's: their own."""
    found = records.listed(context, 'identity:list_credentials', models.Credential,
                           {'user_id': user_id, 'type': kind})
    return [c for c in found if policy.check(context, 'identity:get_credential',
                                             {'user_id': c['user_id']})]


def update_credential(context, credential_id, changes):
    _owned(context, 'identity:update_credential', credential_id)
    with db_api.transaction() as session:
        row = records.get(session, models.Credential, credential_id, KIND)
        for key, value in changes.items():
            setattr(row, key, value)
        _ec2_id(records.as_dict(row))
        return records.as_dict(row)


def delete_credential(context, credential_id):
    _owned(context, 'identity:delete_credential', credential_id)
    with db_api.transaction() as session:
        session.delete(records.get(session, models.Credential, credential_id, KIND))


def create_policy(context, kind, blob):
    policy.authorize(context, 'identity:create_policy')
    with db_api.transaction() as session:
        row = models.Policy(id=records.new_id(), type=kind, blob=blob)
        session.add(row)
        return records.as_dict(row)


def show_policy(context, policy_id):
    return records.show(context, 'identity:get_policy', models.Policy, policy_id,
                        'Policy')


def list_policies(context, kind=None):
    return records.listed(context, 'identity:list_policies', models.Policy,
                          {'type': kind})


def update_policy(context, policy_id, changes):
    return records.update(context, 'identity:update_policy', models.Policy, policy_id,
                          'Policy', changes)


def delete_policy(context, policy_id):
    records.delete(context, 'identity:delete_policy', models.Policy, policy_id,
                   'Policy')
