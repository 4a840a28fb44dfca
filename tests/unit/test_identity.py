import pytest

from provisioner import exception
from provisioner.identity import passwords
from provisioner.identity import service as identity


def test_password_hash_is_salted_scrypt_and_verifies():
    first = passwords.hash_password('s3cret')
    second = passwords.hash_password('s3cret')
    assert first.startswith('scrypt$') and first != second
    assert 's3cret' not in first
    assert passwords.verify_password('s3cret', first)
    assert not passwords.verify_password('s3creT', first)
    assert not passwords.verify_password('s3cret', 'garbage')


def test_bootstrap_then_token_gives_admin_context():
    identity.bootstrap('alice', 'pw-alice', 'ops')
    context = identity.validate(identity.authenticate('alice', 'pw-alice', 'ops'))
    assert (context.user_name, context.project_name) == ('alice', 'ops')
    assert context.is_admin


def test_bootstrap_twice_resets_the_password():
    identity.bootstrap('alice', 'old', 'ops')
    identity.bootstrap('alice', 'new', 'ops')
    with pytest.raises(exception.NotAuthenticated):
        identity.authenticate('alice', 'old', 'ops')
    assert identity.authenticate('alice', 'new', 'ops')


@pytest.mark.parametrize('user,password,project', [
    ('alice', 'wrong', 'ops'),
    ('mallory', 'pw-alice', 'ops'),
    ('alice', 'pw-alice', 'other-project'),
])
def test_bad_credentials_are_refused_with_one_message(user, password, project):
    identity.bootstrap('alice', 'pw-alice', 'ops')
    with pytest.raises(exception.NotAuthenticated) as err:
        identity.authenticate(user, password, project)
    assert 'wrong user name, password or project' in str(err.value)
