"""Password hashing with scrypt, a memory-hard KDF, and constant-time verification."""

import base64
import hashlib
import hmac
import secrets

# ~16 MiB and ~50 ms per hash: slow for a guesser, unnoticeable for a login.
_N, _R, _P = 2 ** 14, 8, 1
_SCHEME = 'scrypt'


def _derive(password, salt, n, r, p):
    return hashlib.scrypt(password.encode('utf-8'), salt=salt, n=n, r=r, p=p,
                          maxmem=64 * 1024 * 1024, dklen=32)


def hash_password(password):
    salt = secrets.token_bytes(16)
    digest = _derive(password, salt, _N, _R, _P)
    return '$'.join([_SCHEME, str(_N), str(_R), str(_P),
                     base64.b64encode(salt).decode(), base64.b64encode(digest).decode()])


def verify_password(password, encoded):
    try:
        scheme, n, r, p, salt, digest = encoded.split('$')
        if scheme != _SCHEME:
            return False
        expected = base64.b64decode(digest)
        actual = _derive(password, base64.b64decode(salt), int(n), int(r), int(p))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(expected, actual)
