"""The CLI's token cache: authenticate once, reuse the token until it nearly expires.

One owner-only file per (user, project, deployment), in an owner-only directory. The
file also holds a verifier of the password, so a wrong or changed OS_PASSWORD never
reuses a token; a token the engine refuses (revoked, keys rotated out) is replaced.
"""

import hashlib
import hmac
import json
import os
import time

from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner import exception
from provisioner.identity import fernet
from provisioner.identity import service as identity
from provisioner import redact

_MARGIN = 30  # seconds: a token this close to expiry is renewed before use


def cache_dir():
    if CONF.token.cache_dir:
        return CONF.token.cache_dir
    base = os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache')
    return os.path.join(base, 'provisioner', 'tokens')


def _path(username, project_name):
    deployment = [username, project_name, db_api.database_url(),
                  os.path.abspath(fernet.key_repository()),
                  [os.path.abspath(p) for p in CONF.config_file or []]]
    digest = hashlib.sha256(json.dumps(deployment).encode()).hexdigest()
    return os.path.join(cache_dir(), digest)


def _verifier(password, token):
    # Cheap scrypt keyed by the token: proves the password without storing it.
    return hashlib.scrypt(password.encode('utf-8'), salt=token.encode('ascii')[-32:],
                          n=2 ** 10, r=8, p=1, dklen=32).hex()


def _load(path, password):
    try:
        with open(path) as f:
            entry = json.load(f)
        token, expires_at = entry['token'], float(entry['expires_at'])
        verifier = entry['verifier']
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if expires_at - _MARGIN <= time.time():
        return None
    if not hmac.compare_digest(verifier, _verifier(password, token)):
        return None
    return token


def _save(path, password, token):
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    os.chmod(directory, 0o700)
    _user, _project, _issued, expires_at = fernet.decode(token)
    tmp = '%s.tmp-%d' % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        json.dump({'token': token, 'expires_at': expires_at,
                   'verifier': _verifier(password, token)}, f)
    os.replace(tmp, path)


def context(username, password, project_name):
    """The RequestContext for these credentials, from a cached or a new token."""
    redact.register(password)
    path = _path(username, project_name)
    token = _load(path, password)
    if token is not None:
        redact.register(token)
        try:
            return identity.validate(token)
        except exception.NotAuthenticated:
            pass  # revoked or signed by a rotated-out key: authenticate again
    token = identity.authenticate(username, password, project_name)
    redact.register(token)
    context = identity.validate(token)
    try:
        _save(path, password, token)
    except OSError:
        pass  # no cache: the next command authenticates again, nothing worse
    return context
