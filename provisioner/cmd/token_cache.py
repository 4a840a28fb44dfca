"""The CLI's token cache: authenticate once, reuse the token until it nearly expires.

One owner-only file per (user, project, deployment), in an owner-only directory. The
file also holds a verifier of the password, so a wrong or changed OS_PASSWORD never
reuses a token; a token the engine refuses (revoked, keys rotated out) is replaced.
"""

import os

from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner import exception
from provisioner.identity import fernet
from provisioner.identity import service as identity
from provisioner import redact
from provisioner import token_files



def _path(username, project_name):
    return token_files.path_for(username, project_name, db_api.database_url(),
                                os.path.abspath(fernet.key_repository()),
                                [os.path.abspath(p) for p in CONF.config_file or []])


def _load(path, password):
    entry = token_files.load(path, password)
    return entry['token'] if entry is not None else None


def _save(path, password, token):
    _user, _project, _issued, expires_at = fernet.decode(token)
    token_files.save(path, password, token, expires_at)


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
    _save(path, password, token)  # without a cache the next command logs in again
    return context
