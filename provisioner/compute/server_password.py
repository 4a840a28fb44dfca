"""A server's encrypted password (Nova's os-server-password): what its guest posted
to the metadata service (encrypted with the server's key pair's public key, so only
the key's owner reads it), shown to its project and cleared on request.

As Nova's: a guest posts it once (409 while one is kept), at most 4 x 255
characters (400 beyond); clearing it does not change the guest's own password.
"""

from provisioner.compute import instances
from provisioner.db import api as db_api
from provisioner import exception

MAX_SIZE = 4 * 255  # Nova's CHUNKS * CHUNK_LENGTH


class PasswordAlreadySet(exception.Conflict):
    msg_fmt = 'The password of instance %(instance_id)s is already set.'


def record(instance_id, password):
    """The guest's post (the metadata service's caller identified the instance)."""
    if isinstance(password, bytes):
        password = password.decode('utf-8', errors='replace')
    if len(password) > MAX_SIZE:
        raise exception.Invalid(reason='Request is too large.')
    with db_api.transaction() as session:
        row = instances.get_row(session, instance_id)
        if row.password:
            raise PasswordAlreadySet(instance_id=instance_id)
        row.password = password


def kept(instance_id):
    """The password the guest posted, or None (the metadata service's GET)."""
    with db_api.transaction() as session:
        return instances.get_row(session, instance_id).password or None
