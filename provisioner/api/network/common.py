"""What the network controllers share: one create or a bulk one, the owner a body
asks for, its description, a name change, and the unplugging of a network from its
hosts."""

from provisioner.api import validation
from provisioner.api import wsgi
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


def creates(req, resource, schema):
    """The bodies of a create: ``{resource: {...}}`` or Neutron's bulk
    ``{resources: [{...}, ...]}``; each checked against ``schema`` before anything is
    made. (items, bulk)."""
    body = req.json_body()
    plural = resource + 's'
    if not (isinstance(body, dict) and plural in body):
        return [validation.validate(body, schema)[resource]], False
    items = body[plural]
    if len(body) != 1 or not isinstance(items, list) or not items:
        raise wsgi.HTTPError(400, 'Invalid input: a bulk create is {"%s": [{...}, '
                                  '...]} with at least one %s.' % (plural, resource))
    return [validation.validate({resource: item}, schema)[resource]
            for item in items], True


def all_or_nothing(bodies, make, undo):
    """``make`` each body in turn; if one is refused, ``undo`` those made and raise
    (Neutron's emulated bulk create)."""
    made = []
    try:
        for body in bodies:
            made.append(make(body))
    except Exception:
        for item in reversed(made):
            undo(item)
        raise
    return made


def created(req, resource, views, bulk, status=201):
    """The answer to a create: one view, or a bulk create's list of them."""
    if bulk:
        return wsgi.json_response({resource + 's': views}, status)
    return wsgi.json_response({resource: views[0]}, status)


def sync_filters(req, port_ids=(), group_ids=()):
    """After a change of security groups: the hosts of the ports it touches filter
    them anew (a host that fails is logged; the next change repairs it)."""
    port_filters = req.deployment and req.deployment.port_filters
    if port_filters is not None:
        port_filters.sync(port_ids=port_ids, group_ids=group_ids, strict=False)
