"""CLI for placement: host enable|disable|set, quota show|set, server-group ..."""

from provisioner.cmd import commands
from provisioner.cmd import output
from provisioner.compute import quota_api
from provisioner.compute import quotas
from provisioner.compute import server_groups
from provisioner import exception


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


# The project a quota command targets, if the caller may act on it.
_project_id = quota_api.project_id


class _LocalQuotas:
    """Quotas in this host's database, for one caller."""

    def __init__(self, context):
        self._context = context

    def show(self, project=None):
        return quota_api.show(self._context, project)

    def set_limits(self, project=None, **limits):
        return quota_api.set_limits(self._context, project, limits)


class _LocalServerGroups:
    """Server groups in this host's database, for one caller."""

    def __init__(self, context):
        self._context = context

    def create(self, name, group_policy):
        return server_groups.create(self._context, name, group_policy)

    def list_all(self):
        return server_groups.list_all(self._context)

    def show(self, name_or_id):
        return server_groups.show(self._context, name_or_id)

    def delete(self, name_or_id):
        server_groups.delete(self._context, name_or_id)


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
    limits = {r: getattr(args, r) for r in quotas.RESOURCES}
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


def _action(actions, name, common, func, help_text, with_name=True):
    p = actions.add_parser(name, parents=[common], help=help_text)
    p.add_argument('--format', choices=('table', 'json'), default='table',
                   help='output format (default: table)')
    if with_name:
        p.add_argument('name')
    p.set_defaults(func=func)
    return p


def add_host_actions(host_actions, common):
    _action(host_actions, 'enable', common, host_enable,
            'let the scheduler place instances on a host again')
    p = _action(host_actions, 'disable', common, host_disable,
                'keep new instances off a host (its instances stay)')
    p.add_argument('--reason', help='why, shown by "host show"')
    p = _action(host_actions, 'set', common, host_set,
                'set a host\'s availability zone or allocation ratios',)
    p.add_argument('--availability-zone', metavar='ZONE')
    for resource, example in (('cpu', '16 vCPUs per core: 16'), ('ram', '1.5'),
                              ('disk', '1.0')):
        p.add_argument('--%s-allocation-ratio' % resource, type=float, metavar='RATIO',
                       help='over-commit of %s (e.g. %s); capacity = physical x ratio'
                            % (resource.upper() if resource != 'disk' else resource,
                               example))


def add_parsers(sub, common):
    quota = sub.add_parser('quota', help='per-project limits').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _action(quota, 'show', common, quota_show,
                'limits and usage of a project (default: your own)', with_name=False)
    p.add_argument('--project', help='project name or id (admin)')
    p = _action(quota, 'set', common, quota_set,
                'set a project\'s limits (admin); -1 means unlimited', with_name=False)
    p.add_argument('--project', help='project name or id (default: your own)')
    for flag, dest, what in (('--instances', 'instances', 'live instances'),
                             ('--vcpus', 'vcpus', 'vCPUs'),
                             ('--ram', 'ram_mib', 'MiB of RAM'),
                             ('--volumes-gib', 'volumes_gib', 'GiB of volumes')):
        p.add_argument(flag, dest=dest, type=int, metavar='N', help='at most N %s' % what)

    group = sub.add_parser(
        'server-group', help='place instances together or apart').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _action(group, 'create', common, group_create,
                'create a group; boot members with "boot --server-group NAME"')
    p.add_argument('--policy', required=True, choices=server_groups.POLICIES,
                   help='affinity: all members on one host; anti-affinity: every '
                        'member on a different host')
    _action(group, 'list', common, group_list, 'list your project\'s groups',
            with_name=False)
    _action(group, 'show', common, group_show, 'show a group and its members')
    _action(group, 'delete', common, group_delete, 'delete a group without members')
