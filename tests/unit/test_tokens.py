"""Fernet tokens: authentic, expiring, revocable, and validated by the keys alone."""

import os
import stat
import time

from cryptography import fernet as crypto_fernet
import pytest
import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import admin
from provisioner.identity import fernet
from provisioner.identity import service as identity


@pytest.fixture
def alice(admin_context):
    admin.create_user(admin_context, 'alice', 'pw-alice-1')
    admin.add_role(admin_context, 'alice', 'admin', 'member')
    return identity.authenticate('alice', 'pw-alice-1', 'admin')


def _refused(token, reason):
    with pytest.raises(exception.NotAuthenticated) as err:
        identity.validate(token)
    assert reason in str(err.value)


def test_key_repository_is_owner_only_with_a_staged_and_a_primary_key(admin_context):
    repo = fernet.key_repository()
    assert stat.S_IMODE(os.stat(repo).st_mode) == 0o700
    assert sorted(os.listdir(repo)) == ['0', '1']
    for name in os.listdir(repo):
        assert stat.S_IMODE(os.stat(os.path.join(repo, name)).st_mode) == 0o600
    assert fernet.setup() == [0, 1]  # setup again keeps the keys


def test_token_carries_no_readable_ids_and_nothing_is_stored(alice, admin_context):
    assert admin_context.user_id not in alice
    with db_api.get_engine().connect() as conn:
        assert 'tokens' not in sa.inspect(conn).get_table_names()
    context = identity.validate(alice)
    assert (context.user_name, context.roles) == ('alice', ('member',))


def test_validation_needs_no_database_row_per_token(alice):
    # The same token validates in a "different engine": only the keys are shared.
    db_api.dispose()
    assert identity.validate(alice).user_name == 'alice'


@pytest.mark.parametrize('tamper', [
    lambda t: t[:-2] + ('AA' if t[-2:] != 'AA' else 'BB'),
    lambda t: t[:20] + ('x' if t[20] != 'x' else 'y') + t[21:],
    lambda t: t[:-10],
    lambda t: '',
    lambda t: 'not-a-token',
    lambda t: t + t,
])
def test_tampered_tokens_are_refused(alice, tamper):
    _refused(tamper(alice), 'the token is invalid')


def test_token_of_another_deployment_is_refused(alice):
    foreign = crypto_fernet.Fernet(crypto_fernet.Fernet.generate_key())
    payload = crypto_fernet.MultiFernet([foreign]).encrypt(b'[1,"u","p",0,9999999999]')
    _refused(payload.decode(), 'the token is invalid')


def test_expired_token_is_refused(admin_context, conf):
    conf.set_override('expiration', 60, group='token')
    token, _ = fernet.issue(admin_context.user_id, admin_context.project_id, -1)
    _refused(token, 'the token has expired')


def test_password_change_and_disable_revoke_tokens(alice, admin_context):
    admin.set_password(admin_context, 'alice', 'pw-alice-2')
    _refused(alice, 'no longer valid')
    with pytest.raises(exception.NotAuthenticated):
        identity.authenticate('alice', 'pw-alice-1', 'admin')
    fresh = identity.authenticate('alice', 'pw-alice-2', 'admin')
    time.sleep(0.01)
    assert identity.validate(fresh).user_name == 'alice'
    admin.disable_user(admin_context, 'alice')
    _refused(fresh, 'no longer valid')
    with pytest.raises(exception.NotAuthenticated):
        identity.authenticate('alice', 'pw-alice-2', 'admin')


def test_removed_role_ends_the_token(alice):
    with db_api.transaction() as session:
        session.execute(sa.delete(models.RoleAssignment).where(
            models.RoleAssignment.role == 'member'))
    _refused(alice, 'no longer valid')


def test_rotation_keeps_old_tokens_until_their_key_is_dropped(alice, conf):
    conf.set_override('max_active_keys', 3, group='fernet_tokens')
    assert fernet.rotate() == [0, 1, 2]
    assert identity.validate(alice).user_name == 'alice'  # signed by key 1
    newer = identity.authenticate('alice', 'pw-alice-1', 'admin')
    assert fernet.rotate() == [0, 2, 3]  # key 1 is dropped
    _refused(alice, 'the token is invalid')
    assert identity.validate(newer).user_name == 'alice'  # signed by key 2


def test_staged_key_validates_before_it_is_primary(alice):
    # Another engine that already rotated signs with our staged key 0.
    with open(os.path.join(fernet.key_repository(), '0'), 'rb') as f:
        staged = crypto_fernet.Fernet(f.read())
    primary = fernet._crypter().decrypt(alice.encode())
    assert identity.validate(staged.encrypt(primary).decode()).user_name == 'alice'


def test_missing_keys_is_a_clear_error(conf, tmp_path):
    conf.set_override('key_repository', str(tmp_path / 'none'), group='fernet_tokens')
    with pytest.raises(exception.ProvisionerError) as err:
        fernet.issue('u', 'p', 60)
    assert 'provisioner token-keys setup' in str(err.value)


def test_identity_admin_needs_the_admin_role(alice):
    member = identity.validate(alice)
    with pytest.raises(exception.Forbidden) as err:
        admin.create_user(member, 'mallory', 'pw-mallory')
    assert 'identity:user_create' in str(err.value)


@pytest.mark.parametrize('call,message', [
    (lambda c: admin.create_user(c, 'bob', 'short'), 'at least 8 characters'),
    (lambda c: admin.create_user(c, '<bob>', 'long-enough'), 'may contain only'),
    (lambda c: admin.create_user(c, 'admin', 'long-enough'), 'User admin already exists'),
    (lambda c: admin.add_role(c, 'admin', 'admin', 'owner'), 'role must be one of'),
    (lambda c: admin.add_role(c, 'nobody', 'admin', 'reader'), 'User nobody not found'),
    (lambda c: admin.create_project(c, 'admin'), 'Project admin already exists'),
])
def test_identity_admin_validates_its_input(admin_context, call, message):
    with pytest.raises(exception.ProvisionerError) as err:
        call(admin_context)
    assert message in str(err.value)
