"""CLI for an operator's clean-up: ``audit [--fix]`` and ``host teardown HOST``.

Both act where the database is: all-in-one on this host with its own driver;
distributed on each host through its worker's maintenance endpoint (the
deployment's ``hosts``). Through the REST API (OS_AUTH_URL) they are not available.
"""

import sys

from provisioner.cmd import commands
from provisioner.cmd import output
from provisioner.conf import CONF
from provisioner import exception
from provisioner import rpc

AUDIT_COLUMNS = ('host', 'problem', 'kind', 'name', 'reason', 'action')


def _authorize(args):
    if commands.uses_rest(args):
        raise exception.Invalid(reason='audit and host teardown run where the '
                                       'database is (an engine\'s host, or '
                                       'all-in-one); unset OS_AUTH_URL and use that '
                                       'host\'s configuration.')
    from provisioner import policy
    policy.authorize(commands._context(args), 'host:update')


def _hosts(args, deployment):
    """(hosts to audit, hosts skipped because their worker stopped reporting)."""
    if args.host:
        return [args.host], []
    if not deployment.distributed:
        return [CONF.host], []
    from provisioner.catalog import hosts
    every = hosts.list_all()
    return ([h['name'] for h in every if h['alive']],
            [h['name'] for h in every if not h['alive']])


def _action(finding, fix):
    if finding.problem != 'orphan':
        return '-'
    if finding.removed:
        return 'removed'
    if finding.error:
        return 'failed: %s' % finding.error
    if not fix:
        return 'kept (run with --fix)'
    return 'kept (younger than the grace period)'


def audit(args):
    """Compare each host with the database; with --fix remove the orphans."""
    from provisioner.maintenance import audit as auditing
    _authorize(args)
    deployment = commands.this_deployment(args)
    api = deployment.hosts
    grace = CONF.worker.orphan_grace_period if args.grace_period is None \
        else args.grace_period
    audited, unreachable = _hosts(args, deployment)
    for host in unreachable:
        print('Host %s is down (its worker stopped reporting): not audited.' % host,
              file=sys.stderr)
    findings = []
    for host in audited:
        try:
            findings += auditing.run(host, api.inventory, api.remove_resources, grace,
                                     args.fix)
        except rpc.messaging_errors() as exc:
            unreachable.append(host)
            print('Host %s: its worker did not answer (%s).'
                  % (host, type(exc).__name__), file=sys.stderr)
    rows = [dict(f.to_dict(), action=_action(f, args.fix)) for f in findings]
    if args.format == 'json':
        output.emit(rows, 'json')
    elif rows:
        output.table(rows, AUDIT_COLUMNS)
    else:
        print('No orphans and nothing missing.')
    remaining = [f for f in findings if not f.removed]
    return 1 if remaining or unreachable else 0


def _teardown_on_host(deployment, host):
    """Have ``host`` remove what this deployment made there; distributed, an unknown
    host or a worker that does not answer is one line saying so."""
    api = deployment.hosts
    if not deployment.distributed:
        return api.teardown(host)
    from provisioner.catalog import hosts
    if host not in {h['name'] for h in hosts.list_all()}:
        raise exception.NotFound(kind='Host', name=host)
    try:
        return api.teardown(host)
    except rpc.messaging_errors() as exc:
        raise exception.Conflict(reason=(
            'host %s: its worker did not answer (%s); a teardown runs on the host '
            'itself: start provisioner-worker there and try again.'
            % (host, type(exc).__name__))) from None


def host_teardown(args):
    """Remove this deployment's pools, networks and files from an unused host."""
    from provisioner.maintenance import teardown
    _authorize(args)
    deployment = commands.this_deployment(args)
    removed = teardown.teardown(
        args.name, lambda host: _teardown_on_host(deployment, host))
    if args.format == 'json':
        output.emit({'host': args.name, 'removed': removed}, 'json')
    else:
        for line in removed:
            print('  removed %s' % line)
        print('Host %s torn down: nothing of this deployment is left on it.'
              % args.name)
    return 0
