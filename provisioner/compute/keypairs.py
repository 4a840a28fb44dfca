"""Key pairs: the public keys a user boots instances with (Nova's os-keypairs).

A key pair belongs to a user, not to a project, as in Nova: the user sees the same
key pairs in every project, and another user's key pair does not exist for them.
An instance copies the public key when it boots (ComputeAPI), so deleting a key
pair later changes no instance.

Types are Nova's: ``ssh`` (an OpenSSH public key; fingerprint = MD5 of the key
blob) and ``x509`` (a PEM certificate; fingerprint = SHA-1 of the DER form).
Without a public key one is generated, and its private half is returned once and
never stored.
"""

import base64
import datetime
import hashlib
import uuid

from cryptography import exceptions as crypto_exceptions
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.oid import NameOID
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.catalog import common
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy
from provisioner.quota import limits
from provisioner import schemas
from provisioner import validation

SSH, X509 = 'ssh', 'x509'
TYPES = (SSH, X509)
MAX_NAME_LENGTH = 255
_NAME_LENGTH = ('Keypair name must be string and between 1 and %d characters long'
                % MAX_NAME_LENGTH)
CREATE = schemas.request('key pair create', {
    # Letters, digits, spaces, '_', '-', '.' and '@' (Nova's rule since 2.92, a
    # superset of the older one).
    'name': {'type': 'string', 'minLength': 1, 'maxLength': MAX_NAME_LENGTH,
             'pattern': schemas.whole('[A-Za-z0-9 _.@-]+'),
             'errorMessage': {'type': _NAME_LENGTH, 'minLength': _NAME_LENGTH,
                              'maxLength': _NAME_LENGTH,
                              'pattern': 'Keypair name contains unsafe characters'}},
    'type': schemas.titled(schemas.one_of(*TYPES), 'type'),
    'public_key': {'type': 'string', 'errorMessage': 'the public key must be text'}},
    required=['name', 'type'])
_KEY_BITS = 2048
_UPN_OID = x509.ObjectIdentifier('1.3.6.1.4.1.311.20.2.3')  # Microsoft's user principal


class InvalidKeypair(exception.Invalid):
    msg_fmt = 'Keypair data is invalid: %(reason)s'


class KeyPairExists(exception.Conflict):
    msg_fmt = "Key pair '%(key_name)s' already exists."


class KeypairNotFound(exception.NotFound):
    msg_fmt = 'Keypair %(name)s not found for user %(user_id)s'


class KeypairLimitExceeded(exception.Forbidden):
    msg_fmt = 'Maximum number of key pairs exceeded'


def _colon_hex(digest):
    return ':'.join('%02x' % byte for byte in digest)


def fingerprint(public_key, key_type=SSH):
    """Nova's fingerprint of a public key; InvalidKeypair when it is not one."""
    data = public_key.encode('utf-8')
    if key_type == X509:
        try:
            cert = x509.load_pem_x509_certificate(data)
        except ValueError as exc:
            raise InvalidKeypair(reason='failed to generate X509 fingerprint. Error '
                                        'message: %s' % exc) from None
        return _colon_hex(cert.fingerprint(hashes.SHA1()))  # Nova: SHA-1, not for security
    try:
        serialization.load_ssh_public_key(data)
        blob = base64.b64decode(public_key.split(' ')[1])
    except (ValueError, IndexError, TypeError, crypto_exceptions.UnsupportedAlgorithm):
        raise InvalidKeypair(reason='failed to generate fingerprint') from None
    return _colon_hex(hashlib.md5(blob, usedforsecurity=False).digest())


def _generate_ssh():
    """(private key PEM, OpenSSH public key): RSA 2048, as Nova generates."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=_KEY_BITS)
    private = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                           serialization.PublicFormat.OpenSSH).decode()
    return private, '%s Generated-by-Provisioner' % public


def _generate_x509(user_id):
    """(base64 PKCS#12 private key, PEM certificate): Nova's WinRM client certificate,
    subject CN=<user id>, for passwordless authentication as <user id>@localhost."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=_KEY_BITS)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, user_id)])
    upn = ('%s@localhost' % user_id).encode()
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .add_extension(x509.SubjectAlternativeName([x509.OtherName(
                _UPN_OID, b'\x0c' + bytes([len(upn)]) + upn)]), critical=False)
            .sign(key, hashes.SHA256()))
    bundle = pkcs12.serialize_key_and_certificates(
        None, key, cert, None, serialization.NoEncryption())
    return (base64.b64encode(bundle).decode(),
            cert.public_bytes(serialization.Encoding.PEM).decode())


def _describe(row):
    return common.to_dict(row)


def _authorize(context, action, user_id=None):
    """The key pairs' owner: the caller, or (admins, Nova 2.10) the user asked for."""
    policy.authorize(context, 'keypair:%s' % action,
                     {'user_id': context.user_id, 'project_id': context.project_id})
    if user_id not in (None, context.user_id) and not policy.check(context, 'admin'):
        raise exception.Forbidden(reason='Policy doesn\'t allow os_compute_api:'
                                         'os-keypairs:%s to be performed.' % action)
    return user_id or context.user_id


def _insert(context, name, key_type, public_key, key_fingerprint, user_id=None):
    user_id = user_id or context.user_id
    kp = models.KeyPair
    try:
        with db_api.transaction() as session:
            count = session.execute(sa.select(sa.func.count()).select_from(kp)
                                    .where(kp.user_id == user_id)).scalar()
            if count >= limits.KEY_PAIRS_PER_USER:
                raise KeypairLimitExceeded()
            row = kp(id=str(uuid.uuid4()), name=name, user_id=user_id,
                     type=key_type, public_key=public_key, fingerprint=key_fingerprint)
            session.add(row)
    except sa_exc.IntegrityError:
        raise KeyPairExists(key_name=name) from None
    return _describe(row)


def import_public_key(context, name, public_key, key_type=SSH, user_id=None):
    """Record the caller's public key (or x509 certificate) under ``name``; an admin
    may record it for another user (``user_id``)."""
    owner = _authorize(context, 'create', user_id)
    validation.check({'name': name, 'type': key_type, 'public_key': public_key},
                     CREATE, InvalidKeypair, none_is_absent=False)
    return _insert(context, name, key_type, public_key,
                   fingerprint(public_key, key_type), owner)


def create(context, name, key_type=SSH, user_id=None):
    """Generate a key pair for the caller (or, admins, ``user_id``): (key pair, its
    private key, shown once)."""
    owner = _authorize(context, 'create', user_id)
    validation.check({'name': name, 'type': key_type}, CREATE, InvalidKeypair,
                     none_is_absent=False)
    if key_type == X509:
        private_key, public_key = _generate_x509(owner)
    else:
        private_key, public_key = _generate_ssh()
    return (_insert(context, name, key_type, public_key,
                    fingerprint(public_key, key_type), owner), private_key)


def list_all(context, user_id=None):
    """The user's key pairs by name (the caller's, or an admin's choice)."""
    owner = _authorize(context, 'list', user_id)
    kp = models.KeyPair
    with db_api.transaction() as session:
        return [_describe(row) for row in session.execute(
            sa.select(kp).where(kp.user_id == owner).order_by(kp.name)).scalars()]


def _find(session, owner, name):
    kp = models.KeyPair
    row = session.execute(sa.select(kp).where(kp.user_id == owner,
                                              kp.name == name)).scalar()
    if row is None:
        raise KeypairNotFound(kind='Keypair', name=name, user_id=owner)
    return row


def show(context, name, user_id=None):
    owner = _authorize(context, 'show', user_id)
    with db_api.transaction() as session:
        return _describe(_find(session, owner, name))


def delete(context, name, user_id=None):
    owner = _authorize(context, 'delete', user_id)
    with db_api.transaction() as session:
        session.delete(_find(session, owner, name))
