"""Key pairs: per user, validated, fingerprinted as Nova does, generated on request."""

import base64

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID
import pytest

from provisioner.compute import keypairs
from provisioner import exception
from provisioner.identity import admin
from provisioner.identity import service as identity
from provisioner.quota import limits

ED25519 = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKEMWVXgbcMhFDxKVnDs8LCF6IECKgmO1ErXXfE'
           'sfKnq user@example')
# `ssh-keygen -l -E md5` of the key above.
ED25519_MD5 = 'f8:76:c2:3b:0b:ea:f7:28:67:d9:2a:0f:41:b9:57:27'


@pytest.fixture
def user(admin_context):
    """user(name, role='member'): the context of a new user in project demo."""

    def make(name, role='member'):
        try:
            admin.create_project(admin_context, 'demo')
        except exception.Conflict:
            pass
        admin.create_user(admin_context, name, 'pw-%s-123456' % name)
        admin.add_role(admin_context, name, 'demo', role)
        return identity.validate(identity.authenticate(name, 'pw-%s-123456' % name,
                                                       'demo'))

    return make


def test_ssh_fingerprint_is_md5_of_the_key_blob_as_ssh_keygen_shows():
    assert keypairs.fingerprint(ED25519) == ED25519_MD5
    # Trailing newline (a key file read whole) and no comment: the same key.
    assert keypairs.fingerprint(ED25519.rsplit(' ', 1)[0] + '\n') == ED25519_MD5


@pytest.mark.parametrize('public_key', [
    '', 'ssh-rsa', 'ssh-rsa AAAA', 'ssh-ed25519 bm90IGEga2V5', 'not a key at all',
    ED25519.replace('ssh-ed25519', 'ssh-rsa'),
    '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'])
def test_invalid_ssh_keys_are_refused(public_key):
    with pytest.raises(keypairs.InvalidKeypair) as caught:
        keypairs.fingerprint(public_key)
    assert str(caught.value) == 'Keypair data is invalid: failed to generate fingerprint'


def test_import_list_show_delete(user):
    alice = user('alice')
    created = keypairs.import_public_key(alice, 'laptop', ED25519)
    assert (created['name'], created['type'], created['fingerprint'],
            created['public_key'], created['user_id']) == (
        'laptop', 'ssh', ED25519_MD5, ED25519, alice.user_id)
    assert [k['name'] for k in keypairs.list_all(alice)] == ['laptop']
    assert keypairs.show(alice, 'laptop')['id'] == created['id']
    keypairs.delete(alice, 'laptop')
    assert keypairs.list_all(alice) == []
    with pytest.raises(keypairs.KeypairNotFound):
        keypairs.show(alice, 'laptop')


def test_key_pairs_belong_to_their_user(user):
    alice, bob = user('alice'), user('bob')
    keypairs.import_public_key(alice, 'shared-name', ED25519)
    assert keypairs.list_all(bob) == []
    with pytest.raises(keypairs.KeypairNotFound) as caught:
        keypairs.show(bob, 'shared-name')
    assert str(caught.value) == 'Keypair shared-name not found for user %s' % bob.user_id
    with pytest.raises(exception.NotFound):
        keypairs.delete(bob, 'shared-name')
    # The name is per user.
    keypairs.import_public_key(bob, 'shared-name', ED25519)
    assert keypairs.show(alice, 'shared-name')['user_id'] == alice.user_id


def test_a_reader_may_keep_key_pairs(user):
    reader = user('rita', role='reader')
    keypairs.import_public_key(reader, 'k', ED25519)
    assert len(keypairs.list_all(reader)) == 1


def test_duplicate_name_is_a_conflict(user):
    alice = user('alice')
    keypairs.import_public_key(alice, 'k', ED25519)
    with pytest.raises(keypairs.KeyPairExists) as caught:
        keypairs.create(alice, 'k')
    assert str(caught.value) == "Key pair 'k' already exists."
    assert len(keypairs.list_all(alice)) == 1


@pytest.mark.parametrize('name', ['a', 'my key', 'a_b-c.d@e', 'x' * 255])
def test_names_nova_accepts(user, name):
    keypairs.import_public_key(user('alice'), name, ED25519)


@pytest.mark.parametrize('name', ['', 'x' * 256, 'semi;colon', 'slash/y', 'new\nline',
                                  '<b>', None, 5])
def test_names_nova_refuses(user, name):
    alice = user('alice')
    with pytest.raises(keypairs.InvalidKeypair):
        keypairs.import_public_key(alice, name, ED25519)
    assert keypairs.list_all(alice) == []


def test_unknown_type_and_bad_public_key_create_nothing(user):
    alice = user('alice')
    with pytest.raises(keypairs.InvalidKeypair):
        keypairs.import_public_key(alice, 'k', ED25519, key_type='rsa')
    with pytest.raises(keypairs.InvalidKeypair):
        keypairs.import_public_key(alice, 'k', 'ssh-rsa garbage')
    with pytest.raises(keypairs.InvalidKeypair):
        keypairs.import_public_key(alice, 'k', ED25519, key_type='x509')
    assert keypairs.list_all(alice) == []


def test_other_ssh_key_kinds_are_accepted(user):
    key = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()
    created = keypairs.import_public_key(user('alice'), 'ecdsa', key)
    assert created['fingerprint'] == keypairs.fingerprint(key)


def test_generated_ssh_key_pair(user):
    alice = user('alice')
    created, private_key = keypairs.create(alice, 'gen')
    key = serialization.load_pem_private_key(private_key.encode(), password=None)
    assert key.key_size == 2048
    public = key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                           serialization.PublicFormat.OpenSSH).decode()
    assert created['public_key'].startswith(public + ' ')
    assert created['fingerprint'] == keypairs.fingerprint(created['public_key'])
    # The private key is not kept.
    assert private_key not in str(keypairs.show(alice, 'gen'))


def test_generated_x509_key_pair(user):
    alice = user('alice')
    created, private_key = keypairs.create(alice, 'win', key_type=keypairs.X509)
    cert = x509.load_pem_x509_certificate(created['public_key'].encode())
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == \
        alice.user_id
    key, bundled_cert, _ = pkcs12.load_key_and_certificates(
        base64.b64decode(private_key), None)
    assert bundled_cert == cert
    assert key.public_key().public_numbers() == cert.public_key().public_numbers()
    assert created['fingerprint'] == ':'.join(
        '%02x' % b for b in cert.fingerprint(hashes.SHA1()))
    assert created['type'] == 'x509'
    # An imported certificate is fingerprinted the same way.
    imported = keypairs.import_public_key(alice, 'win2', created['public_key'],
                                          key_type=keypairs.X509)
    assert imported['fingerprint'] == created['fingerprint']


def test_a_user_has_at_most_100(user, monkeypatch):
    alice = user('alice')
    monkeypatch.setattr(limits, 'KEY_PAIRS_PER_USER', 3)
    for n in range(3):
        keypairs.import_public_key(alice, 'k%d' % n, ED25519)
    with pytest.raises(keypairs.KeypairLimitExceeded):
        keypairs.import_public_key(alice, 'k3', ED25519)
    assert len(keypairs.list_all(alice)) == 3
    # Another user has their own allowance.
    keypairs.import_public_key(user('bob'), 'k3', ED25519)
