"""openstacksdk's cloud layer as a small-cloud user calls it, step by step.

    python -m tests.ansible.sdk_cloud --admin-cloud A --demo-cloud D --disk QCOW2
        --cidr CIDR --public-key-file F --log SDK_LOG --record RESULTS.jsonl

(python -m tests.ansible runs it, with the clouds.yaml of its deployment in
OS_CLIENT_CONFIG_FILE.) The admin makes a public image and a flavor; the demo user
a network, subnet, security group with two rules, key pair, a server (wait=True,
auto_ip=False), a volume it attaches and detaches, a server booted from a new
volume; each is read back with get_* and list_*; then every delete runs, whatever
failed before (a delete of what does not exist is a no-op in the cloud layer).

A step whose prerequisite failed is skipped. Each step's outcome is printed and
written as a JSON line to --record (step, calls, status: pass, fail or skip, error,
started, ended); the last line printed is "N passed, N failed, N skipped". Exit
status 1 when a step failed. Imports only openstacksdk and the standard library, so
that any environment with openstacksdk can run it.
"""

import argparse
import importlib.metadata
import ipaddress
import json
import sys
import time

import openstack

PREFIX = 'sdk-'
# Seconds a detached volume may take to be available (provisioner gives a guest 30 s
# to release the disk, then rolls the detach back).
DETACH_WAIT = 120
STEPS = []


def step(name, calls, needs=()):
    """A step of the run: fn(run), named, with the cloud-layer calls it makes and
    the steps it needs."""
    def register(fn):
        STEPS.append((name, calls, tuple(needs), fn))
        return fn
    return register


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def named(resources, name):
    return [r for r in resources if r['name'] == name]


def address_in(server, network, cidr):
    addresses = [a['addr'] for a in (server['addresses'] or {}).get(network, [])]
    check(any(ipaddress.ip_address(a) in ipaddress.ip_network(cidr)
              for a in addresses),
          'server %s has no address in %s on %s: %s'
          % (server['name'], cidr, network, server['addresses']))


class Run:
    def __init__(self, args):
        self.args = args
        self.admin = openstack.connect(cloud=args.admin_cloud)
        self.demo = openstack.connect(cloud=args.demo_cloud)
        self.made = {}


# -- creates and reads -------------------------------------------------------------

@step('image', 'admin: create_image(filename=qcow2, is_public=True, wait=True)')
def make_image(run):
    image = run.admin.create_image(PREFIX + 'guest', filename=run.args.disk,
                                   disk_format='qcow2', container_format='bare',
                                   is_public=True, wait=True, timeout=300)
    check(image['status'] == 'active', 'image is %s' % image['status'])
    run.made['image'] = image


@step('image read', 'demo: get_image, list_images', needs=['image'])
def read_image(run):
    check(run.demo.get_image(PREFIX + 'guest')['id'] == run.made['image']['id'],
          'get_image found another image')
    check(named(run.demo.list_images(), PREFIX + 'guest'), 'list_images lacks it')


@step('flavor', 'admin: create_flavor')
def make_flavor(run):
    run.made['flavor'] = run.admin.create_flavor(PREFIX + 'tiny', ram=128, vcpus=1,
                                                 disk=1)


@step('flavor read', 'demo: get_flavor, list_flavors', needs=['flavor'])
def read_flavor(run):
    flavor = run.demo.get_flavor(PREFIX + 'tiny')
    check(flavor is not None and flavor['ram'] == 128, 'get_flavor: %s' % flavor)
    check(named(run.demo.list_flavors(), PREFIX + 'tiny'), 'list_flavors lacks it')


@step('network', 'demo: create_network')
def make_network(run):
    run.made['network'] = run.demo.create_network(PREFIX + 'net')


@step('subnet', 'demo: create_subnet', needs=['network'])
def make_subnet(run):
    run.made['subnet'] = run.demo.create_subnet(
        run.made['network']['id'], cidr=run.args.cidr, ip_version=4,
        subnet_name=PREFIX + 'subnet')


@step('network read', 'demo: get_network, list_networks, get_subnet, list_subnets',
      needs=['subnet'])
def read_network(run):
    network = run.demo.get_network(PREFIX + 'net')
    check(run.made['subnet']['id'] in network['subnets'], 'network: %s' % network)
    check(named(run.demo.list_networks(), PREFIX + 'net'), 'list_networks lacks it')
    check(run.demo.get_subnet(PREFIX + 'subnet')['cidr'] == run.args.cidr,
          'get_subnet: another cidr')
    check(named(run.demo.list_subnets(), PREFIX + 'subnet'), 'list_subnets lacks it')


@step('security group', 'demo: create_security_group')
def make_security_group(run):
    run.made['security group'] = run.demo.create_security_group(
        PREFIX + 'sg', 'ssh and ping from anywhere')


@step('security group rules', 'demo: create_security_group_rule (tcp 22, icmp)',
      needs=['security group'])
def make_rules(run):
    run.demo.create_security_group_rule(PREFIX + 'sg', port_range_min=22,
                                        port_range_max=22, protocol='tcp',
                                        remote_ip_prefix='0.0.0.0/0')
    run.demo.create_security_group_rule(PREFIX + 'sg', protocol='icmp',
                                        remote_ip_prefix='0.0.0.0/0')


@step('security group read', 'demo: get_security_group, list_security_groups',
      needs=['security group rules'])
def read_security_group(run):
    group = run.demo.get_security_group(PREFIX + 'sg')
    ingress = [r for r in group['security_group_rules']
               if r['direction'] == 'ingress']
    check(sorted(r['protocol'] for r in ingress) == ['icmp', 'tcp'],
          'ingress rules: %s' % ingress)
    check(named(run.demo.list_security_groups(), PREFIX + 'sg'),
          'list_security_groups lacks it')


@step('key pair', 'demo: create_keypair(public_key)')
def make_keypair(run):
    with open(run.args.public_key_file) as key:
        run.made['key pair'] = run.demo.create_keypair(PREFIX + 'key',
                                                       key.read().strip())


@step('key pair read', 'demo: get_keypair, list_keypairs', needs=['key pair'])
def read_keypair(run):
    check(run.demo.get_keypair(PREFIX + 'key') is not None, 'get_keypair: None')
    check(named(run.demo.list_keypairs(), PREFIX + 'key'), 'list_keypairs lacks it')


@step('server', 'demo: create_server(image, flavor, network, key_name, '
                'security_groups, wait=True, auto_ip=False)',
      needs=['image', 'flavor', 'subnet', 'key pair', 'security group'])
def make_server(run):
    server = run.demo.create_server(
        PREFIX + 'vm', image=PREFIX + 'guest', flavor=PREFIX + 'tiny',
        network=PREFIX + 'net', key_name=PREFIX + 'key',
        security_groups=[PREFIX + 'sg'], wait=True, auto_ip=False, timeout=300)
    check(server['status'] == 'ACTIVE', 'server is %s' % server['status'])
    address_in(server, PREFIX + 'net', run.args.cidr)
    run.made['server'] = server


@step('server read', 'demo: get_server, list_servers, get_server_console',
      needs=['server'])
def read_server(run):
    server = run.demo.get_server(PREFIX + 'vm')
    check(server['key_name'] == PREFIX + 'key', 'key_name: %s' % server['key_name'])
    check(named(run.demo.list_servers(), PREFIX + 'vm'), 'list_servers lacks it')
    run.demo.get_server_console(server)


@step('volume', 'demo: create_volume(wait=True)')
def make_volume(run):
    volume = run.demo.create_volume(1, name=PREFIX + 'data', wait=True, timeout=300)
    check(volume['status'] == 'available', 'volume is %s' % volume['status'])
    run.made['volume'] = volume


@step('attach', 'demo: attach_volume(wait=True), get_volume, get_volume_attach_device',
      needs=['server', 'volume'])
def attach(run):
    run.demo.attach_volume(run.made['server'], run.made['volume'], wait=True,
                           timeout=300)
    volume = run.demo.get_volume(PREFIX + 'data')
    check(volume['status'] == 'in-use', 'volume is %s' % volume['status'])
    check(run.demo.get_volume_attach_device(volume, run.made['server']['id']),
          'get_volume_attach_device: none: %s' % volume['attachments'])


@step('detach', 'demo: detach_volume, list_volumes', needs=['attach'])
def detach(run):
    # detach_volume(wait=True) ignores its timeout (openstacksdk 4.14 to 4.22 wait
    # for "available" forever): the wait is bounded here.
    volume = run.demo.get_volume(PREFIX + 'data')
    run.demo.detach_volume(run.made['server'], volume, wait=False)
    run.demo.block_storage.wait_for_status(volume, 'available', failures=['error'],
                                           wait=DETACH_WAIT)
    volume = named(run.demo.list_volumes(), PREFIX + 'data')
    check(volume and volume[0]['status'] == 'available', 'volume: %s' % volume)


@step('boot from volume', 'demo: create_server(boot_from_volume=True, volume_size=1, '
                          'terminate_volume=True, wait=True, auto_ip=False)',
      needs=['image', 'flavor', 'subnet'])
def boot_from_volume(run):
    server = run.demo.create_server(
        PREFIX + 'bfv', image=PREFIX + 'guest', flavor=PREFIX + 'tiny',
        network=PREFIX + 'net', boot_from_volume=True, volume_size=1,
        terminate_volume=True, wait=True, auto_ip=False, timeout=300)
    check(server['status'] == 'ACTIVE', 'server is %s' % server['status'])
    address_in(server, PREFIX + 'net', run.args.cidr)


@step('limits and zones', 'demo: get_compute_limits, get_volume_limits, '
                          'list_availability_zone_names')
def limits(run):
    run.demo.get_compute_limits()
    run.demo.get_volume_limits()
    check(run.demo.list_availability_zone_names(), 'no availability zone')


# -- deletes: each runs, whatever failed before -------------------------------------

for _name, _calls, _args in (
        ('delete boot-from-volume server', 'demo: delete_server(wait=True)',
         ('demo', 'server', 'bfv', {'wait': True, 'timeout': 300})),
        ('delete server', 'demo: delete_server(wait=True)',
         ('demo', 'server', 'vm', {'wait': True, 'timeout': 300})),
        ('delete volume', 'demo: delete_volume(wait=True)',
         ('demo', 'volume', 'data', {'wait': True, 'timeout': 300})),
        ('delete key pair', 'demo: delete_keypair', ('demo', 'keypair', 'key', {})),
        ('delete security group', 'demo: delete_security_group',
         ('demo', 'security_group', 'sg', {})),
        ('delete subnet', 'demo: delete_subnet', ('demo', 'subnet', 'subnet', {})),
        ('delete network', 'demo: delete_network', ('demo', 'network', 'net', {})),
        ('delete flavor', 'admin: delete_flavor', ('admin', 'flavor', 'tiny', {})),
        ('delete image', 'admin: delete_image(wait=True)',
         ('admin', 'image', 'guest', {'wait': True, 'timeout': 300}))):
    step(_name, _calls)(lambda run, a=_args: getattr(
        getattr(run, a[0]), 'delete_' + a[1])(PREFIX + a[2], **a[3]))


@step('all gone', 'demo: list_servers, list_volumes, list_keypairs, '
                  'list_security_groups, list_networks; admin: list_flavors, '
                  'list_images')
def all_gone(run):
    left = [r['name'] for lister in (
        run.demo.list_servers, run.demo.list_volumes, run.demo.list_keypairs,
        run.demo.list_security_groups, run.demo.list_networks,
        run.admin.list_flavors, run.admin.list_images)
        for r in lister() if (r['name'] or '').startswith(PREFIX)]
    check(not left, 'still listed: %s' % ', '.join(left))


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m tests.ansible.sdk_cloud',
                                     description=__doc__.split('\n\n')[0])
    for option in ('--admin-cloud', '--demo-cloud', '--disk', '--cidr',
                   '--public-key-file', '--log', '--record'):
        parser.add_argument(option, required=True)
    args = parser.parse_args(argv)
    openstack.enable_logging(http_debug=True, path=args.log)
    print('openstacksdk %s' % importlib.metadata.version('openstacksdk'), flush=True)
    run = Run(args)
    outcome = {}
    with open(args.record, 'a') as record:
        for name, calls, needs, fn in STEPS:
            started, error = time.time(), None
            missing = [n for n in needs if outcome.get(n) != 'pass']
            if missing:
                status, error = 'skip', 'needs %s' % ', '.join(missing)
            else:
                try:
                    fn(run)
                    status = 'pass'
                except Exception as exc:  # noqa: BLE001 -- every failure is a result
                    status, error = 'fail', '%s: %s' % (type(exc).__name__, exc)
            outcome[name] = status
            print('%-4s %s -- %s%s' % (status.upper(), name, calls,
                                       ': %s' % error if error else ''), flush=True)
            record.write(json.dumps({'step': name, 'calls': calls, 'status': status,
                                     'error': error, 'started': started,
                                     'ended': time.time()}) + '\n')
    counts = [list(outcome.values()).count(s) for s in ('pass', 'fail', 'skip')]
    print('%d passed, %d failed, %d skipped' % tuple(counts))
    return 1 if counts[1] else 0


if __name__ == '__main__':
    sys.exit(main())
