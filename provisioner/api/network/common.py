"""What the network controllers share: the owner a body asks for, its description,
a name change, and the unplugging of a network from its hosts."""

from provisioner import exception
from provisioner.maintenance import networks as maintenance_networks


def project(req, body):
    """The project a create is for: the caller's, or one an admin names."""
    wanted = body.get('project_id') or body.get('tenant_id')
    if wanted and wanted != req.context.project_id and not req.context.is_admin:
        raise exception.Forbidden(reason='only an admin makes resources of another '
                                         'project')
    return wanted


def description(body, absent=None):
    """The ``description`` asked for (the schema checked it), kept verbatim; null is
    ''. Absent: ``absent`` (a create's '', an update's None: unchanged)."""
    if 'description' not in body:
        return absent
    return body['description'] or ''


def name_update(body):
    """A subnet's or port's new name: None (absent) leaves it; null clears it."""
    if 'name' not in body:
        return None
    return body['name'] or ''


def unplug(req):
    """What removes a network from the hosts that have it: all-in-one this process
    is that host; distributed, the hosts' workers."""
    return lambda net: maintenance_networks.unplug(req.deployment.hypervisor, net)
