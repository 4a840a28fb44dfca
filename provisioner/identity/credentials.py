"""Keystone's credentials (a user's blob: an EC2 key pair, a TOTP secret...) and
stored policies (blobs served, not enforced). A blob is a secret: it is answered to
its owner and admins, never logged."""

import hashlib
import json
import secrets

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
        credential = models.Credential(id=_ec2_id(values) or records.new_id(),
                                       **records.columns(models.Credential, values))
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
        for key, value in records.columns(models.Credential, changes).items():
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


show_policy, list_policies, update_policy, delete_policy = records.operations(
    models.Policy, 'Policy', 'policy', 'policies')


# -- EC2 credentials (OS-EC2): credentials of type ec2, by their access key ----------

def _ec2_view(credential):
    blob = json.loads(credential['blob'])
    return {'access': blob['access'], 'secret': blob['secret'],
            'user_id': credential['user_id'], 'tenant_id': credential['project_id'],
            'trust_id': blob.get('trust_id')}


def create_ec2(context, user_id, project_id):
    """A new access and secret key pair of the user for a project they hold a role
    on."""
    policy.authorize(context, 'identity:ec2_create_credential', {'user_id': user_id})
    with db_api.transaction() as session:
        records.get(session, models.Project, project_id or '', 'Project')
    blob = json.dumps({'access': secrets.token_hex(16), 'secret': secrets.token_hex(16),
                       'trust_id': None})
    return _ec2_view(create_credential(context, {'user_id': user_id, 'type': 'ec2',
                                                 'project_id': project_id,
                                                 'blob': blob}))


def list_ec2(context, user_id):
    policy.authorize(context, 'identity:ec2_list_credentials', {'user_id': user_id})
    return [_ec2_view(c) for c in records.listed(
        context, 'identity:ec2_list_credentials', models.Credential,
        {'user_id': user_id, 'type': 'ec2'}, {'user_id': user_id})]


def show_ec2(context, user_id, access):
    policy.authorize(context, 'identity:ec2_get_credential', {'user_id': user_id})
    found = [c for c in list_ec2(context, user_id) if c['access'] == access]
    if not found:
        raise exception.NotFound(kind='EC2 credential', name=access)
    return found[0]


def delete_ec2(context, user_id, access):
    show_ec2(context, user_id, access)
    policy.authorize(context, 'identity:ec2_delete_credential', {'user_id': user_id})
    with db_api.transaction() as session:
        session.delete(session.get(models.Credential,
                                   hashlib.sha256(access.encode()).hexdigest()))
