"""Fernet tokens and their key repository, as Keystone does them.

A token is the user, project, issue and expiry time, encrypted and authenticated
(AES-128-CBC + HMAC-SHA256) with the primary key of the repository: it cannot be
read, forged or altered without a key, and any process holding the keys validates it
without a database lookup. Nothing is stored per token.

The repository holds numbered key files: 0 is the staged key (the next primary), the
highest number is the primary (signs new tokens), the ones between are old primaries
that still validate tokens issued before a rotation. ``rotate`` promotes the staged key,
stages a new one and drops the oldest beyond ``[fernet_tokens] max_active_keys``.
"""

import base64
import binascii
import hashlib
import json
import os
import time

from cryptography import fernet

from provisioner.conf import CONF
from provisioner import exception

# 1: [1, user, project, issued, expires]; 2: the same and the application
# credential the token was issued for; 3: [3, user, None, issued, expires], scoped to
# the system (Keystone's system scope).
_PAYLOAD_VERSION = 1
_APP_CRED_PAYLOAD_VERSION = 2
_SYSTEM_PAYLOAD_VERSION = 3


def key_repository():
    return CONF.fernet_tokens.key_repository or os.path.join(CONF.state_path,
                                                             'fernet-keys')


def _key_ids(repo):
    try:
        names = os.listdir(repo)
    except FileNotFoundError:
        return []
    return sorted(int(n) for n in names if n.isdigit())


def _write_key(repo, key_id):
    """Write a new key atomically, owner-only from its first byte."""
    tmp = os.path.join(repo, '.%d.tmp' % key_id)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'wb') as f:
        f.write(fernet.Fernet.generate_key())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join(repo, str(key_id)))


def _ensure_repository(repo):
    os.makedirs(repo, mode=0o700, exist_ok=True)
    os.chmod(repo, 0o700)


def setup():
    """Create the repository with a staged and a primary key; keep existing keys."""
    repo = key_repository()
    _ensure_repository(repo)
    if not _key_ids(repo):
        _write_key(repo, 0)
        rotate()
    return _key_ids(repo)


def rotate():
    """Promote the staged key to primary, stage a new key, purge the oldest."""
    repo = key_repository()
    _ensure_repository(repo)
    ids = _key_ids(repo)
    if 0 not in ids:
        _write_key(repo, 0)
        ids = _key_ids(repo)
    new_primary = max(ids) + 1
    os.replace(os.path.join(repo, '0'), os.path.join(repo, str(new_primary)))
    _write_key(repo, 0)
    ids = _key_ids(repo)
    old = [i for i in ids if i != 0]
    for key_id in old[:max(0, len(ids) - CONF.fernet_tokens.max_active_keys)]:
        os.remove(os.path.join(repo, str(key_id)))
    return _key_ids(repo)


def _crypter():
    repo = key_repository()
    ids = _key_ids(repo)
    if len(ids) < 2:
        raise exception.ProvisionerError(
            'No token keys in %s: run "provisioner token-keys setup" (or '
            '"provisioner bootstrap", which creates them).' % repo)
    # MultiFernet encrypts with the first key and tries them all to decrypt.
    order = sorted((i for i in ids if i != 0), reverse=True) + [0]
    keys = []
    for key_id in order:
        with open(os.path.join(repo, str(key_id)), 'rb') as f:
            keys.append(fernet.Fernet(f.read().strip()))
    return fernet.MultiFernet(keys)


def issue(user_id, project_id, lifetime, application_credential_id=None, system=False,
          expires_at=None):
    """A token for the user scoped to the project (issued for an application
    credential, if given; to the system with ``system``), and its expiry (epoch
    seconds): ``lifetime`` from now, or ``expires_at`` exactly."""
    issued_at = time.time()
    expires_at = expires_at if expires_at is not None else issued_at + lifetime
    fields = [_PAYLOAD_VERSION, user_id, project_id, issued_at, expires_at]
    if system:
        fields = [_SYSTEM_PAYLOAD_VERSION, user_id, None, issued_at, expires_at]
    if application_credential_id is not None:
        fields = [_APP_CRED_PAYLOAD_VERSION] + fields[1:] + [application_credential_id]
    payload = json.dumps(fields, separators=(',', ':')).encode()
    return _crypter().encrypt(payload).decode('ascii'), expires_at


def decode(token):
    """(user_id, project_id, issued_at, expires_at) of an authentic, unexpired token."""
    return decode_all(token)[:4]


def decode_all(token):
    """decode's four and the application credential's id (None: a password's)."""
    return _decode(token)[:5]


def is_system(token):
    """Whether an authentic, unexpired token is scoped to the system."""
    return _decode(token)[5] == _SYSTEM_PAYLOAD_VERSION


def _decode(token):
    invalid = exception.NotAuthenticated(reason='the token is invalid')
    if not isinstance(token, str) or not token or len(token) > 1024:
        raise invalid
    try:
        # base64 decoding stops at the first padding: 'token' + 'anything' would
        # decode as the token. Only the canonical encoding is accepted.
        if base64.urlsafe_b64encode(base64.urlsafe_b64decode(token)).decode() != token:
            raise invalid
        payload = json.loads(_crypter().decrypt(token.encode('ascii')))
        version, user_id, project_id, issued_at, expires_at = payload[:5]
        credential = payload[5] if version == _APP_CRED_PAYLOAD_VERSION else None
        if len(payload) != (6 if credential else 5):
            raise invalid
    except (fernet.InvalidToken, binascii.Error, UnicodeError, ValueError, TypeError):
        raise invalid from None
    if version not in (_PAYLOAD_VERSION, _APP_CRED_PAYLOAD_VERSION,
                       _SYSTEM_PAYLOAD_VERSION):
        raise invalid
    if expires_at <= time.time():
        raise exception.NotAuthenticated(reason='the token has expired')
    return user_id, project_id, issued_at, expires_at, credential, version


def audit_id(token):
    """Keystone's audit id: names a token (in logs, in revocations) without revealing it."""
    digest = hashlib.sha256(token.encode()).digest()[:16]
    return base64.urlsafe_b64encode(digest).decode().rstrip('=')
