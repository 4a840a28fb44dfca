"""The CLI's token cache: authenticate once, reuse the token until it nearly expires.

One owner-only file per (user, project, deployment), in an owner-only directory. The
file also holds a verifier of the password, so a wrong or changed OS_PASSWORD never
reuses a token; a token the engine refuses (revoked, keys rotated out) is replaced.

Light to import (no SQLAlchemy): ``cached_token`` serves the quick reads too
(provisioner.cmd.quick_list); identity, which validates against the database, is
imported by ``context`` only.
"""

import os

from provisioner.conf import CONF
from provisioner.db import basics
from provisioner import exception
from provisioner.identity import fernet
from provisioner import redact
from provisioner import token_files


def _path(username, project_name):
    return token_files.path_for(username, project_name, basics.database_url(),
                                os.path.abspath(fernet.key_repository()),
                                [os.path.abspath(p) for p in CONF.config_file or []])


def cached_token(username, password, project_name):
    """The cached token of these credentials (not validated), or None."""
    redact.register(password)
    entry = token_files.load(_path(username, project_name), password)
    if entry is None:
        return None
    redact.register(entry['token'])
    return entry['token']


def _save(path, password, token):
    _user, _project, _issued, expires_at = fernet.decode(token)
    token_files.save(path, password, token, expires_at)


def context(username, password, project_name):
    """The RequestContext for these credentials, from a cached or a new token."""
    from provisioner.identity import service as identity
    token = cached_token(username, password, project_name)
    if token is not None:
        try:
            return identity.validate(token)
        except exception.NotAuthenticated:
            pass  # revoked or signed by a rotated-out key: authenticate again
    token = identity.authenticate(username, password, project_name)
    redact.register(token)
    context = identity.validate(token)
    _save(_path(username, project_name), password, token)
    return context
