"""The CLI's commands: each takes the parsed arguments and returns an exit code."""

import os
import sys

from provisioner.catalog import flavors
from provisioner.catalog import hosts
from provisioner.catalog import images
from provisioner.catalog import networks
from provisioner.cmd import output
from provisioner.compute import api as compute_api
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import migration
from provisioner import exception
from provisioner.identity import service as identity
from provisioner import virt

INSTANCE_COLUMNS = ('id', 'name', 'vm_state', 'task_state', 'power_state', 'host',
                    'addresses')


def _context(args):
    missing = [flag for flag, value in (('--os-username / OS_USERNAME', args.os_username),
                                        ('--os-password / OS_PASSWORD', args.os_password),
                                        ('--os-project-name / OS_PROJECT_NAME',
                                         args.os_project_name)) if not value]
    if missing:
        raise exception.NotAuthenticated(reason='missing credentials: %s'
                                                % ', '.join(missing))
    token = identity.authenticate(args.os_username, args.os_password,
                                  args.os_project_name)
    return identity.validate(token)


def db_sync(args):
    migration.db_sync()
    print('Database is at the latest schema.')
    return 0


def bootstrap(args):
    ids = identity.bootstrap(args.username, args.password, args.project)
    print('Admin user %s (%s) in project %s (%s) is ready.'
          % (args.username, ids['user_id'], args.project, ids['project_id']))
    return 0


# -- catalog ----------------------------------------------------------------------

def flavor_create(args):
    _context(args).require_role('admin')
    output.emit(flavors.create(args.name, args.vcpus, args.ram, args.disk), args.format)
    return 0


def image_create(args):
    _context(args).require_role('admin')
    output.emit(images.create(args.name, file=args.file, kernel=args.kernel,
                              ramdisk=args.ramdisk, disk_format=args.disk_format,
                              cmdline=args.cmdline), args.format)
    return 0


def network_create(args):
    _context(args).require_role('admin')
    output.emit(networks.create(virt.get_driver(), args.name, args.cidr,
                                gateway=args.gateway, dhcp_start=args.dhcp_start,
                                dhcp_end=args.dhcp_end), args.format)
    return 0


def network_delete(args):
    _context(args).require_role('admin')
    networks.delete(virt.get_driver(), args.name)
    print('Network %s deleted.' % args.name)
    return 0


_CATALOG = {'flavor': (flavors, ('name', 'vcpus', 'ram_mib', 'disk_gib', 'id')),
            'image': (images, ('name', 'disk_format', 'kernel_path', 'ramdisk_path',
                               'disk_path', 'size_bytes', 'id')),
            'network': (networks, ('name', 'cidr', 'gateway', 'dhcp_start', 'dhcp_end',
                                   'id')),
            'host': (hosts, ('name', 'vcpus', 'vcpus_used', 'memory_mib',
                             'memory_mib_used', 'disk_gib', 'disk_gib_used',
                             'hypervisor_type', 'enabled'))}


def catalog_list(args):
    _context(args)
    module, columns = _CATALOG[args.resource]
    if args.resource == 'host':
        hosts.report_capacity(CONF.host, virt.get_driver().capacity())
    output.emit(module.list_all(), args.format, columns)
    return 0


def catalog_show(args):
    _context(args)
    output.emit(_CATALOG[args.resource][0].show(args.name), args.format)
    return 0


def catalog_delete(args):
    _context(args).require_role('admin')
    _CATALOG[args.resource][0].delete(args.name)
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
            return f.read()
    except OSError as exc:
        raise exception.Invalid(reason='cannot read user data file %s: %s'
                                       % (path, exc.strerror)) from None


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
    api = compute_api.ComputeAPI(_context(args))
    instance_id = api.create_instance(args.name, args.flavor, args.image, args.network,
                                      args.volume_size, _read_user_data(args.user_data))
    if args.no_wait:
        log_path = os.path.join(CONF.state_path, 'logs', 'boot-%s.log' % instance_id)
        api.start_in_background(instance_id, log_path)
        info = api.show(instance_id)
        if args.format == 'json':
            output.emit(info, args.format)
        else:
            print('Boot of %s (%s) started in the background; follow it with '
                  '"provisioner show %s". Log: %s' % (args.name, instance_id,
                                                     instance_id, log_path))
        return 0
    if args.format != 'json':
        print('Booting %s (%s):' % (args.name, instance_id), flush=True)
    try:
        info = api.run_boot(instance_id, progress=_progress(args))
    except KeyboardInterrupt:
        _interrupted(instance_id)
    return _report_boot(info, args.format)


def run_boot_detached(args):
    """Hidden: the background half of boot --no-wait."""
    api = compute_api.ComputeAPI(_context(args))
    info = api.run_boot(args.instance, progress=output.StepPrinter())
    return _report_boot(info, 'table')


def _resume_or_rollback(args, method):
    api = compute_api.ComputeAPI(_context(args))
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

    info = compute_api.ComputeAPI(_context(args)).delete(
        args.name, progress=_progress(args), on_wait=waiting)
    if args.format == 'json':
        output.emit(info, args.format)
    else:
        print('Instance %s (%s) deleted.' % (info['name'], info['id']))
    return 0


def list_instances(args):
    api = compute_api.ComputeAPI(_context(args))
    rows = api.list(all_projects=args.all_projects)
    if args.format != 'json':
        for row in rows:
            row['addresses'] = [a['ip'] for a in row['addresses']]
    output.emit(rows, args.format, INSTANCE_COLUMNS)
    return 0


def show(args):
    output.emit(compute_api.ComputeAPI(_context(args)).show(args.name), args.format)
    return 0


def console(args):
    path = compute_api.ComputeAPI(_context(args)).console(args.name)
    if args.path:
        print(path)
        return 0
    with open(path, 'rb') as log:
        sys.stdout.buffer.write(log.read())
    sys.stdout.flush()
    return 0
