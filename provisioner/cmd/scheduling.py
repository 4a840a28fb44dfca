"""CLI for placement: host enable|disable|set, quota show|set, server-group ..."""

from provisioner.catalog import common
from provisioner.cmd import commands
from provisioner.cmd import output
from provisioner.compute import quotas
from provisioner.compute import server_groups
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy


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
    """The project whose quota ``action`` targets (default: the caller's), if allowed.

    A project the caller may not act on reads as not found, like another project's
    instance: a member cannot probe which project names exist.
    """
    if name is None or name in (context.project_name, context.project_id):
        project_id = context.project_id
    else:
        with db_api.transaction() as session:
            project_id = common.find(session, models.Project, name, 'Project').id
    policy.authorize_owned(context, action, project_id, 'Project', name)
    return project_id


def quota_show(args):
    context = commands._context(args)
    output.emit(quotas.show(_project_id(context, args.project, 'quota:show')),
                args.format, ('resource', 'limit', 'in_use'))
    return 0


def quota_set(args):
    context = commands._context(args)
    limits = {r: getattr(args, r) for r in quotas.RESOURCES}
    if all(v is None for v in limits.values()):
        raise exception.Invalid(reason='give at least one of --instances, --vcpus, '
                                       '--ram, --volumes-gib')
    output.emit(quotas.set_limits(_project_id(context, args.project, 'quota:set'),
                                  **limits),
                args.format, ('resource', 'limit', 'in_use'))
    return 0


def group_create(args):
    output.emit(server_groups.create(commands._context(args), args.name, args.policy),
                args.format)
    return 0


def group_list(args):
    output.emit(server_groups.list_all(commands._context(args)), args.format,
                ('name', 'policy', 'members', 'id'))
    return 0


def group_show(args):
    output.emit(server_groups.show(commands._context(args), args.name), args.format)
    return 0


def group_delete(args):
    server_groups.delete(commands._context(args), args.name)
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
