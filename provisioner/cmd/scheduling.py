"""CLI for placement: host enable|disable|set, quota show|set, server-group ...

The parsers are in provisioner.cmd.cli. Through the REST API (OS_AUTH_URL) these
commands import no database: the local implementations import theirs when made.
"""

from provisioner.cmd import commands
from provisioner.cmd import output
from provisioner import exception

# provisioner.quota.counters.RESOURCES, without its database: the dests of the
# "quota set" flags (tests/unit/test_cli_startup.py keeps the two equal).
QUOTA_RESOURCES = ('instances', 'vcpus', 'ram_mib', 'volumes_gib')


def host_enable(args):
    output.emit(commands._catalog(args).update_host(args.name, enabled=True),
                args.format)
    return 0


def host_disable(args):
    output.emit(commands._catalog(args).update_host(
        args.name, enabled=False, disabled_reason=args.reason), args.format)
    return 0


def host_set(args):
    output.emit(commands._catalog(args).update_host(
        args.name, availability_zone=args.availability_zone,
        cpu_allocation_ratio=args.cpu_allocation_ratio,
        ram_allocation_ratio=args.ram_allocation_ratio,
        disk_allocation_ratio=args.disk_allocation_ratio), args.format)
    return 0


def _project_id(context, name, action):
    """The project a quota command targets, if the caller may act on it."""
    from provisioner.quota import api as quota_api
    return quota_api.project_id(context, name, action)


class _LocalQuotas:
    """Quotas in this host's database, for one caller."""

    def __init__(self, context):
        from provisioner.quota import api as quota_api
        self._context = context
        self._api = quota_api

    def show(self, project=None):
        return self._api.show(self._context, project)

    def set_limits(self, project=None, **limits):
        return self._api.set_limits(self._context, project, limits)


class _LocalServerGroups:
    """Server groups in this host's database, for one caller."""

    def __init__(self, context):
        from provisioner.compute import server_groups
        self._context = context
        self._api = server_groups

    def create(self, name, group_policy):
        return self._api.create(self._context, name, group_policy)

    def list_all(self):
        return self._api.list_all(self._context)

    def show(self, name_or_id):
        return self._api.show(self._context, name_or_id)

    def delete(self, name_or_id):
        self._api.delete(self._context, name_or_id)


def _quotas(args):
    session = commands.rest_session(args)
    if session is not None:
        from provisioner.client import scheduling
        return scheduling.RestQuotas(session)
    return _LocalQuotas(commands._context(args))


def _groups(args):
    session = commands.rest_session(args)
    if session is not None:
        from provisioner.client import scheduling
        return scheduling.RestServerGroups(session)
    return _LocalServerGroups(commands._context(args))


def quota_show(args):
    output.emit(_quotas(args).show(args.project), args.format,
                ('resource', 'limit', 'in_use'))
    return 0


def quota_set(args):
    limits = {r: getattr(args, r) for r in QUOTA_RESOURCES}
    if all(v is None for v in limits.values()):
        raise exception.Invalid(reason='give at least one of --instances, --vcpus, '
                                       '--ram, --volumes-gib')
    output.emit(_quotas(args).set_limits(args.project, **limits), args.format,
                ('resource', 'limit', 'in_use'))
    return 0


def group_create(args):
    output.emit(_groups(args).create(args.name, args.policy), args.format)
    return 0


def group_list(args):
    output.emit(_groups(args).list_all(), args.format,
                ('name', 'policy', 'members', 'id'))
    return 0


def group_show(args):
    output.emit(_groups(args).show(args.name), args.format)
    return 0


def group_delete(args):
    _groups(args).delete(args.name)
    print('Server group %s deleted.' % args.name)
    return 0
