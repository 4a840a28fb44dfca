"""A server's metadata (Nova's server metadata API): replace, merge, drop one key.

The metadata is the instance's ``properties`` (``boot --property``); what a write
leaves is checked as a boot's properties are, and more than the metadata_items
quota allows is Nova's 403, not a bad request.
"""

from provisioner import exception
from provisioner import schemas
from provisioner import validation

_METADATA = schemas.request('server metadata', {
    'properties': schemas.titled(schemas.PROPERTIES, 'metadata')})


class MetadataLimitExceeded(exception.ProvisionerError):
    """Nova's 403 for more items than the metadata_items quota."""

    msg_fmt = 'Maximum number of metadata items exceeds %(allowed)d'
    exit_code = 7
    http_status = 403


def check_count(items):
    if items is not None and len(items) > schemas.MAX_PROPERTIES:
        raise MetadataLimitExceeded(allowed=schemas.MAX_PROPERTIES)


def updated(current, items, replace=False):
    """The metadata after a write of ``items``: them alone, or merged over ``current``.
    """
    result = dict(items) if replace else dict(current or {}, **items)
    check_count(result)
    validation.check({'properties': result}, _METADATA)
    return result


def without(current, key):
    """The metadata without ``key``; NotFound when it has no such key."""
    if key not in (current or {}):
        raise exception.NotFound('Metadata item was not found', kind='Metadata item',
                                 name=key)
    return {k: v for k, v in current.items() if k != key}
