"""The CLI's commands: each takes the parsed arguments and returns an exit code.

Two doors, one per deployment: with OS_AUTH_URL every command goes to
provisioner-api's REST API (provisioner.client); without it, all-in-one, the same
services provisioner-api calls run in this process (the compute and catalog APIs
of this host's deployment). A distributed deployment is reached through the REST
API only; its operator commands (db-sync, bootstrap, token-keys, audit, host
teardown) act where its database configuration is, as nova-manage does.

Light to import: what only the database, the engine or the hypervisor serve (the
catalog and compute APIs, identity, SQLAlchemy, TaskFlow) is imported by the code
that uses it, so a command through the REST API (OS_AUTH_URL) imports none of it.
"""

import os
import subprocess
import sys

from provisioner.cmd import output
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner import exception
from provisioner import redact

INSTANCE_COLUMNS = ('id', 'name', 'vm_state', 'task_state', 'power_state', 'host',
                    'addresses')


def _check_credentials(args):
    missing = [flag for flag, value in (('--os-username / OS_USERNAME', args.os_username),
                                        ('--os-password / OS_PASSWORD', args.os_password),
                                        ('--os-project-name / OS_PROJECT_NAME',
                                         args.os_project_name)) if not value]
    if missing:
        raise exception.NotAuthenticated(reason='missing credentials: %s'
                                                % ', '.join(missing))


def _context(args):
    """The caller, all-in-one: OS_TOKEN as given, else a cached or new token."""
    from provisioner.cmd import token_cache
    from provisioner.identity import service as identity
    token = getattr(args, 'os_token', None)
    if token:
        redact.register(token)
        return identity.validate(token)
    _check_credentials(args)
    return token_cache.context(args.os_username, args.os_password,
                               args.os_project_name)


def uses_rest(args):
    """True when this command goes to provisioner-api (OS_AUTH_URL is set).

    db-sync, bootstrap and token-keys act on this host's database and key
    repository (``local``): they are how the API's own host is set up.
    """
    return bool(getattr(args, 'os_auth_url', None)) and not getattr(args, 'local', False)


class NeedsTheAPI(exception.ProvisionerError):
    msg_fmt = ('This configuration is a distributed deployment\'s (its transport_url '
               'names a broker): the provisioner CLI reaches it through '
               'provisioner-api. Set OS_AUTH_URL (or --os-auth-url) to the API\'s '
               'identity URL, e.g. http://API-HOST:8774/identity. Only db-sync, '
               'bootstrap, token-keys, audit and host teardown act on its database '
               'directly.')
    exit_code = 2


def check_door(args):
    """Refuse a command that would act on a distributed deployment's database
    without going through provisioner-api (see the module's doc)."""
    from provisioner import deployment
    if getattr(args, 'database', False) or uses_rest(args):
        return
    if deployment.mode() == deployment.DISTRIBUTED:
        raise NeedsTheAPI()


def this_deployment(args):
    """This process's deployment (provisioner.deployment), built once per command."""
    built = getattr(args, 'deployment', None)
    if built is None:
        from provisioner.engine import deployments
        built = args.deployment = deployments.build()
    return built


def rest_session(args):
    """The command's authenticated REST session (made once), or None without one."""
    if not uses_rest(args):
        return None
    session = getattr(args, 'rest_session', None)
    if session is None:
        from provisioner.client import http
        token = getattr(args, 'os_token', None)
        if not token:
            _check_credentials(args)
        session = args.rest_session = http.Session(
            args.os_auth_url, args.os_username, args.os_password,
            args.os_project_name, token=token)
    return session


def _compute(args):
    """The compute API: REST (OS_AUTH_URL), else in-process (all-in-one)."""
    session = rest_session(args)
    if session is not None:
        from provisioner.client import compute
        return compute.RestComputeAPI(session)
    return _local_compute(args)


def _local_compute(args):
    """The in-process compute API (all-in-one): its flows run in this process."""
    from provisioner.compute import api as compute_api
    return compute_api.ComputeAPI(_context(args), this_deployment(args))


def db_sync(args):
    from provisioner.db import migration
    migration.db_sync()
    print('Database is at the latest schema.')
    return 0


def bootstrap(args):
    from provisioner.identity import service as identity
    redact.register(args.password, args.service_password)
    admin = (args.username, args.password, args.project)
    if bool(args.service_user) != bool(args.service_password):
        raise exception.Invalid(reason='--service-user and --service-password go '
                                       'together')
    if not all(admin) and (any(admin) or not args.service_user):
        raise exception.Invalid(reason='give --username, --password and --project '
                                       '(the admin), --service-user and '
                                       '--service-password, or both')
    if all(admin):
        ids = identity.bootstrap(*admin)
        print('Admin user %s (%s) in project %s (%s) is ready.'
              % (args.username, ids['user_id'], args.project, ids['project_id']))
    if args.service_user:
        ids = identity.bootstrap(args.service_user, args.service_password, 'service',
                                 role='service')
        print('Service user %s (%s) in project service (%s) is ready.'
              % (args.service_user, ids['user_id'], ids['project_id']))
    return 0


# -- catalog ----------------------------------------------------------------------

def _catalog(args):
    session = rest_session(args)
    if session is not None:
        from provisioner.client import catalog
        return catalog.RestCatalogAPI(session)
    from provisioner.catalog import api as catalog_api
    return catalog_api.CatalogAPI(_context(args), this_deployment(args).hypervisor)


def flavor_create(args):
    output.emit(_catalog(args).create_flavor(args.name, args.vcpus, args.ram, args.disk),
                args.format)
    return 0


def image_create(args):
    output.emit(_catalog(args).create_image(
        args.name, file=args.file, kernel=args.kernel, ramdisk=args.ramdisk,
        disk_format=args.disk_format, cmdline=args.cmdline, arch=args.architecture,
        hypervisor_type=args.hypervisor_type, min_ram_mib=args.min_ram,
        min_disk_gib=args.min_disk), args.format)
    return 0


def network_create(args):
    output.emit(_catalog(args).create_network(
        args.name, args.cidr, gateway=args.gateway, dhcp_start=args.dhcp_start,
        dhcp_end=args.dhcp_end), args.format)
    return 0


def network_delete(args):
    _catalog(args).delete('network', args.name)
    print('Network %s deleted.' % args.name)
    return 0


_COLUMNS = {'flavor': ('name', 'vcpus', 'ram_mib', 'disk_gib', 'id'),
            'image': ('name', 'disk_format', 'kernel_path', 'ramdisk_path', 'disk_path',
                      'size_bytes', 'id'),
            'network': ('name', 'cidr', 'gateway', 'dhcp_start', 'dhcp_end', 'id'),
            'host': ('name', 'availability_zone', 'alive', 'enabled', 'vcpus_used',
                     'vcpus_capacity', 'memory_mib_used', 'memory_mib_capacity',
                     'disk_gib_used', 'disk_gib_capacity', 'hypervisor_type', 'arch')}


def catalog_list(args):
    output.emit(_catalog(args).list(args.resource), args.format,
                _COLUMNS[args.resource])
    return 0


def catalog_show(args):
    output.emit(_catalog(args).show(args.resource, args.name), args.format)
    return 0


def catalog_delete(args):
    _catalog(args).delete(args.resource, args.name)
    print('%s %s deleted.' % (args.resource.capitalize(), args.name))
    return 0


# -- instances --------------------------------------------------------------------

def _read_user_data(path):
    if path is None:
        return None
    limit = CONF.compute.max_user_data_bytes
    try:
        size = os.path.getsize(path)
        if size > limit:
            raise exception.Invalid(reason='user data file %s is %d bytes; the limit '
                                           'is %d' % (path, size, limit))
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as exc:
        raise exception.Invalid(reason='cannot read user data file %s: %s'
                                       % (path, exc.strerror)) from None
    redact.register(data)
    return data


def _properties(pairs):
    properties = {}
    for pair in pairs or ():
        key, sep, value = pair.partition('=')
        if not sep:
            raise exception.Invalid(reason='property %r must be KEY=VALUE' % pair)
        properties[key] = value
    return properties or None


def _report_boot(info, fmt):
    if fmt == 'json':
        output.emit(info, fmt)
    elif info['vm_state'] == states.ACTIVE:
        print('Instance %s (%s) is active on host %s.' % (info['name'], info['id'],
                                                         info['host']))
        for addr in info['addresses']:
            print('  IP address: %s (network %s, MAC %s)' % (addr['ip'], addr['network'],
                                                           addr['mac']))
        print('  Console log: %s' % info['console_log'])
    if info['vm_state'] == states.ACTIVE:
        return 0
    if info['vm_state'] == states.ERROR:
        raise exception.ProvisionerError(
            'Boot of %s failed and was rolled back: %s' % (info['name'], info['fault']))
    raise exception.ProvisionerError(
        'Boot of %s stopped in state %s/%s; run "provisioner resume %s" or '
        '"provisioner rollback %s".' % (info['name'], info['vm_state'],
                                        info['task_state'], info['id'], info['id']))


def _interrupted(instance_id):
    print('\nInterrupted. The boot is saved at its last finished step: continue it '
          'with "provisioner resume %s" or undo it with "provisioner rollback %s".'
          % (instance_id, instance_id), file=sys.stderr, flush=True)
    # Worker threads of the flow may still hold a step; leave without joining them.
    os._exit(130)


def _progress(args):
    return output.StepPrinter(sys.stderr if args.format == 'json' else sys.stdout)


def boot(args):
    api = _compute(args)
    instance_id = api.create_instance(args.name, args.flavor, args.image, args.network,
                                      args.volume_size, _read_user_data(args.user_data),
                                      availability_zone=args.availability_zone,
                                      server_group=args.server_group,
                                      properties=_properties(getattr(args, 'property',
                                                                     None)))
    if args.no_wait:
        if uses_rest(args):  # provisioner-api runs it already
            where = 'provisioner-api'
        else:
            log_path = os.path.join(CONF.state_path, 'logs',
                                    'boot-%s.log' % instance_id)
            _boot_in_background(args, instance_id, log_path)
            where = 'the background (log: %s)' % log_path
        info = api.show(instance_id)
        if args.format == 'json':
            output.emit(info, args.format)
        else:
            print('Boot of %s (%s) started in %s; follow it with "provisioner show '
                  '%s".' % (args.name, instance_id, where, instance_id))
        return 0
    if args.format != 'json':
        print('Booting %s (%s):' % (args.name, instance_id), flush=True)
    try:
        info = api.run_boot(instance_id, progress=_progress(args))
    except KeyboardInterrupt:
        _interrupted(instance_id)
    return _report_boot(info, args.format)


def _boot_in_background(args, instance_id, log_path):
    """All-in-one boot --no-wait: this CLI's hidden _run-boot, in a detached
    process of its own (the flow outlives this command)."""
    os.makedirs(os.path.dirname(log_path), mode=0o700, exist_ok=True)
    command = [sys.executable, '-m', 'provisioner.cmd.cli']
    for config_file in CONF.config_file or []:
        command += ['--config-file', config_file]
    command += ['_run-boot', instance_id]
    with open(log_path, 'ab') as log:
        subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                         start_new_session=True, env=dict(os.environ))


def run_boot_detached(args):
    """Hidden: the background half of boot --no-wait. A delete that came first
    leaves it nothing to do (provisioner.engine.runner.run_boot)."""
    api = _local_compute(args)
    try:
        info = api.run_boot(args.instance, progress=output.StepPrinter())
    except exception.NotFound:
        info = {'vm_state': states.DELETED}
    if info['vm_state'] == states.DELETED:
        print('Instance %s was deleted before its boot ran: nothing to do.'
              % args.instance)
        return 0
    return _report_boot(info, 'table')


def _resume_or_rollback(args, method):
    api = _compute(args)
    try:
        info = getattr(api, method)(args.name, progress=_progress(args))
    except KeyboardInterrupt:
        _interrupted(api.show(args.name)['id'])
    return info


def resume(args):
    return _report_boot(_resume_or_rollback(args, 'resume'), args.format)


def rollback(args):
    info = _resume_or_rollback(args, 'rollback')
    if args.format == 'json':
        output.emit(info, args.format)
    else:
        print('Boot of %s rolled back; the instance is %s and owns nothing any more.'
              % (info['name'], info['vm_state']))
    return 0


def delete(args):
    def waiting(holder):
        print('Waiting for the boot running in process %s to finish...' % holder,
              file=sys.stderr, flush=True)

    info = _compute(args).delete(
        args.name, progress=_progress(args), on_wait=waiting)
    if args.format == 'json':
        output.emit(info, args.format)
    else:
        print('Instance %s (%s) deleted.' % (info['name'], info['id']))
        _report_leftovers(info)
    return 0


def _report_leftovers(info):
    """What a delete could not remove stays on its host: say so, and how it goes.
    (Only the final description of a deleted instance lists them, all-in-one.)"""
    if info.get('vm_state') != states.DELETED:
        return
    for left in info.get('leftovers') or ():
        print('Left behind: %s %s on host %s (%s); once the cause is fixed, '
              '"provisioner audit --fix" removes it.'
              % (left['kind'], left['name'], left['host'], left['error']),
              file=sys.stderr)


def list_instances(args):
    api = _compute(args)
    rows = api.list(all_projects=args.all_projects)
    if args.format != 'json':
        for row in rows:
            row['addresses'] = [a['ip'] for a in row['addresses']]
    output.emit(rows, args.format, INSTANCE_COLUMNS)
    return 0


def show(args):
    output.emit(_compute(args).show(args.name), args.format)
    return 0


def console(args):
    api = _compute(args)
    if args.path:
        print(api.console(args.name))
        return 0
    if uses_rest(args):
        sys.stdout.write(api.console_output(args.name))
        sys.stdout.flush()
        return 0
    path = api.console(args.name)
    with open(path, 'rb') as log:
        sys.stdout.buffer.write(log.read())
    sys.stdout.flush()
    return 0
