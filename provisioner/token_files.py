"""Cached tokens on disk, for the CLI in either mode (in-process or REST).

One owner-only JSON file per (user, project, deployment) in an owner-only directory.
Each file also holds a verifier of the password, so a wrong or changed password
never reuses a token; a token close to its expiry is not reused either.
"""

import hashlib
import hmac
import json
import os
import time

from provisioner.conf import CONF

MARGIN = 30  # seconds: a token this close to expiry is renewed before use


def cache_dir():
    if CONF.token.cache_dir:
        return CONF.token.cache_dir
    base = os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache')
    return os.path.join(base, 'provisioner', 'tokens')


def path_for(*key):
    """The cache file of a deployment and credentials (any JSON-able key parts)."""
    return os.path.join(cache_dir(),
                        hashlib.sha256(json.dumps(list(key)).encode()).hexdigest())


def _verifier(password, token):
    # Cheap scrypt keyed by the token: proves the password without storing it.
    return hashlib.scrypt(password.encode('utf-8'), salt=token.encode('utf-8')[-32:],
                          n=2 ** 10, r=8, p=1, dklen=32).hex()


def load(path, password):
    """The cached entry (a dict with at least token and expires_at), or None."""
    try:
        with open(path) as f:
            entry = json.load(f)
        token, expires_at = entry['token'], float(entry['expires_at'])
        verifier = entry['verifier']
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if expires_at - MARGIN <= time.time():
        return None
    if not hmac.compare_digest(verifier, _verifier(password, token)):
        return None
    return entry


def save(path, password, token, expires_at, **extra):
    """Cache a token (and extra JSON fields); a failure only costs a new login."""
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        os.chmod(directory, 0o700)
        tmp = '%s.tmp-%d' % (path, os.getpid())
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:
            json.dump(dict(extra, token=token, expires_at=expires_at,
                           verifier=_verifier(password, token)), f)
        os.replace(tmp, path)
    except OSError:
        pass


def forget(path):
    try:
        os.unlink(path)
    except OSError:
        pass
