"""Compare what a host holds with what the database says, and remove the orphans.

An *orphan* is held on the host but unknown (or deleted, or placed elsewhere) in the
database; a *missing* resource is one the database says the host must hold and it
does not. Only orphans are ever removed, and only once older than the grace period
(``[worker] orphan_grace_period``): a boot that is making a volume right now has not
recorded it yet. A leftover a failed cleanup recorded is removed regardless of age:
the deployment already decided to remove it.
"""

import logging

from provisioner import leftovers
from provisioner.maintenance import findings as found
from provisioner.maintenance import records as host_records
from provisioner.maintenance import rpcapi
from provisioner.virt import inventory as inv

LOG = logging.getLogger(__name__)

_INSTANCE_KINDS = (inv.DOMAIN, inv.ROOT_DISK, inv.CONFIG_DRIVE, inv.INSTANCE_DIR)


def _orphan_reason(resource, recs):
    if resource.kind in _INSTANCE_KINDS:
        return recs.instance_reason(resource.owner)
    if resource.kind == inv.VOLUME:
        return None if resource.owner in recs.volume_owners else \
            'volume unknown or its instance deleted'
    if resource.kind == inv.NETWORK:
        return None if resource.owner in recs.network_ids else 'network deleted'
    if resource.kind == inv.DHCP_HOST:
        return None if (resource.network, resource.name) in recs.local_ports else \
            'no port of an instance on this host has this MAC'
    if resource.kind == inv.PORT_FILTER:
        return None if resource.owner in recs.local_port_ids else \
            'no port of an instance on this host has this id'
    return None


def _missing(recs, held):
    for exp in recs.expected:
        wanted = [(inv.DOMAIN, 'instance-%s' % exp.instance_id),
                  (inv.INSTANCE_DIR, exp.instance_id),
                  (inv.CONFIG_DRIVE, '%s/disk.config' % exp.instance_id)]
        if exp.root_disk:
            wanted.append((inv.ROOT_DISK, 'instance-%s-root.qcow2' % exp.instance_id))
        wanted += [(inv.VOLUME, 'volume-%s.qcow2' % v) for v in exp.volume_ids]
        for network_id, mac in exp.ports:
            wanted.append((inv.NETWORK, network_id))
            if mac is not None:  # None: another host serves the network's DHCP
                wanted.append((inv.DHCP_HOST, mac))
        for kind, name in dict.fromkeys(wanted):
            if (kind, name) not in held:
                yield found.Finding(
                    found.MISSING, kind, name, exp.instance_id, recs.host,
                    'the database has instance %s running or stopped on this host'
                    % exp.instance_id)


def compare(resources, recs, grace_period, open_leftovers=()):
    """Findings for ``resources`` (the host's inventory) against ``recs``."""
    recorded = {(lo['kind'], lo['name']): lo.get('error') for lo in open_leftovers}
    findings = []
    for resource in resources:
        reason = _orphan_reason(resource, recs)
        if reason is None:
            continue
        key = (resource.kind, resource.name)
        if recorded.get(key):  # what the operator must fix before --fix can work
            reason = '%s; a cleanup failed to remove it: %s' % (reason, recorded[key])
        findings.append(found.Finding(
            found.ORPHAN, resource.kind, resource.name, resource.owner, recs.host,
            reason, resource.to_dict(),
            past_grace=resource.age is None or resource.age >= grace_period,
            recorded=key in recorded))
    findings += _missing(recs, {(r.kind, r.name) for r in resources})
    return findings


def audit_host(host, resources, grace_period):
    """Compare a host's inventory with the database; resolve the leftovers it no
    longer holds. Return the findings (the caller removes what is removable)."""
    open_leftovers = leftovers.list_open(host=host)
    findings = compare(resources, host_records.load(host), grace_period,
                       open_leftovers)
    held = {(r.kind, r.name) for r in resources}
    for lo in open_leftovers:
        if lo['kind'] in inv.KINDS and (lo['kind'], lo['name']) not in held:
            leftovers.resolve(lo['kind'], lo['name'], host)  # gone since
    for finding in findings:
        LOG.info('Audit of host %s: %s %s %s (%s)', host, finding.problem,
                    finding.kind, finding.name, finding.reason)
    return findings


def run(host, inventory_of, remove_on_host, grace_period, fix):
    """Audit ``host``: its inventory (``inventory_of(host)``), the findings, and with
    ``fix`` the removal of its removable orphans (``remove_on_host(host, entries)``).
    The callables are the local driver all-in-one, the host's worker over RPC."""
    resources = [inv.Resource.from_dict(r) for r in inventory_of(host)]
    findings = audit_host(host, resources, grace_period)
    entries = found.to_remove(findings) if fix else []
    if entries:
        record_removals(host, findings, remove_on_host(host, entries))
    return findings


def record_removals(host, findings, outcomes):
    """After the host tried to remove orphans: resolve the leftovers of what it
    removed, record what it could not; mark the findings. ``outcomes``: the host's
    answer, [{'kind', 'name', 'error'}] (error None when removed)."""
    by_key = {(o['kind'], o['name']): o.get('error') for o in outcomes}
    for finding in findings:
        key = (finding.kind, finding.name)
        if finding.problem != found.ORPHAN or key not in by_key:
            continue
        finding.error = by_key[key]
        finding.removed = finding.error is None
        if finding.removed:
            leftovers.resolve(finding.kind, finding.name, host)
        else:
            leftovers.record(finding.kind, finding.name, host, finding.error,
                             finding.owner if finding.kind in _INSTANCE_KINDS else None)
    return findings


class EngineMaintenanceEndpoint:
    """On each engine: the database side of a worker's periodic reconcile."""

    def __init__(self):
        self.target = rpcapi.target()

    def reconcile_host(self, ctxt, host, resources, grace_period):
        findings = audit_host(host, [inv.Resource.from_dict(r) for r in resources],
                              grace_period)
        return [f.to_dict() for f in findings]

    def record_removals(self, ctxt, host, findings, outcomes):
        record_removals(host, found.from_dicts(findings), outcomes)
