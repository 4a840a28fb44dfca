"""Wall time of a real boot, start to the guest's 'ready' line, against two baselines.

All do the same work on the same libvirtd -- root overlay, a 1 GiB volume, a config
drive, a DHCP host entry, define, start -- and all stop the clock when the guest
prints PROVISIONER-GUEST: ready on its serial console. The baselines are
plain_boot.sh, once with a hand-written domain XML and virsh ('script'), once with
virt-install making the domain ('virt-install'). provisioner is measured in-process
(the engine's cost) and through its CLI (what a user waits for, Python start-up and
authentication included). The four modes are alternated, run after run.
"""

import functools
import os
import pathlib
import statistics
import subprocess
import sys
import time
import uuid
from xml.etree import ElementTree

import libvirt

from provisioner.catalog import flavors
from provisioner.catalog import images
from provisioner.maintenance import networks as maintenance_networks
from provisioner.network import service as network_service
from provisioner.network import shared as networks
from provisioner import virt
from provisioner.virt.libvirt import storage
from tests.bench import common
from tests import netutil

RUNS = 5
# What the process that runs a boot's flow must import, whatever else it does: the
# design card's libraries (TaskFlow brings networkx and jsonschema).
BOOT_LIBRARIES = ('taskflow.engines', 'sqlalchemy.orm', 'oslo_config.cfg', 'libvirt')
REPO = pathlib.Path(__file__).resolve().parents[2]
GUEST = REPO / 'build' / 'guest-image'
READY = 'PROVISIONER-GUEST: ready'


def _wait_ready(path, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if READY in pathlib.Path(path).read_text(errors='replace'):
                return
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    raise RuntimeError('guest never became ready; see %s' % path)


def _provisioner_in_process(api, name):
    start = time.perf_counter()
    instance_id = api.create_instance(name, 'tiny', 'guest', ['net1'], [1], b'bench')
    info = api.run_boot(instance_id)
    _wait_ready(info['console_log'])
    elapsed = time.perf_counter() - start
    api.delete(instance_id)
    return elapsed


def _provisioner_cli(api, root, name):
    config = root / 'bench.conf'
    config.write_text('[DEFAULT]\nstate_path = %s\nhost = bench-host\n[libvirt]\n'
                      'resource_prefix = %s\n' % (common.CONF.state_path,
                                                  common.CONF.libvirt.resource_prefix))
    env = dict(common.user_env(), OS_USERNAME='admin', OS_PASSWORD='bench',
               OS_PROJECT_NAME='admin', PYTHONWARNINGS='ignore')
    start = time.perf_counter()
    subprocess.run([sys.executable, '-m', 'provisioner.cmd.cli', '--config-file',
                    str(config), 'boot', name, '--flavor', 'tiny', '--image', 'guest',
                    '--network', 'net1', '--volume-size', '1', '--format', 'json'],
                   check=True, env=env, capture_output=True, cwd=REPO)
    info = api.show(name)
    _wait_ready(info['console_log'])
    elapsed = time.perf_counter() - start
    api.delete(info['id'])
    return elapsed


# plain_boot.sh's TOOL: its own MAC and address block per tool, so no two collide.
_TOOLS = {'virsh': 0, 'virt-install': 1}


def _plain_script(driver, root, net, network, index, tool='virsh'):
    workdir = root / ('plain-%s-%d' % (tool, index))
    domain_uuid = str(uuid.uuid4())
    mac = '52:54:00:be:%02x:%02x' % (_TOOLS[tool], index)
    ip = net['dhcp_end'].rsplit('.', 1)[0] + '.%d' % (200 + 20 * _TOOLS[tool] + index)
    start = time.perf_counter()
    try:
        # The guest leases its address from the network's DHCP server, which is
        # provisioner's (a dnsmasq in the network's namespace): its entry is pinned
        # as a hand-written script would add it, inside the timed window.
        driver.reserve_dhcp(net, mac, ip, 'plain')
        subprocess.run(['bash', str(REPO / 'tests' / 'bench' / 'plain_boot.sh'),
                        str(workdir), str(GUEST / 'vmlinuz'), str(GUEST / 'initramfs.img'),
                        network, mac, ip, domain_uuid, tool], check=True, timeout=300)
        return time.perf_counter() - start
    finally:
        _undo_plain_script(domain_uuid, workdir)
        driver.release_dhcp(net, mac)


def _undo_plain_script(domain_uuid, workdir):
    """Destroy and undefine the script's domain and the storage pools virt-install
    made (whatever of them a failed script got to make; its files go with the
    deployment's root)."""
    conn = libvirt.open('qemu:///system')
    try:
        _delete_pools_under(conn, workdir)
        try:
            dom = conn.lookupByUUIDString(domain_uuid)
        except libvirt.libvirtError:
            dom = None  # the script stopped before the domain was defined
        if dom is not None:
            if dom.isActive():
                dom.destroy()
            dom.undefine()
    finally:
        conn.close()


def _delete_pools_under(conn, directory):
    """virt-install defines (and autostarts) a storage pool for each directory that
    holds one of its disks: the pools of the script's directory go with it."""
    for pool in conn.listAllStoragePools():
        path = ElementTree.fromstring(pool.XMLDesc()).findtext('target/path') or ''
        if pathlib.Path(path) == directory or directory in pathlib.Path(path).parents:
            if pool.isActive():
                pool.destroy()
            pool.undefine()


def import_floor_s(runs=RUNS):
    """Median seconds for a fresh interpreter to import BOOT_LIBRARIES and exit: the
    least any CLI that runs the flow itself adds to a boot (bytecode cached)."""
    # eventlet refused, as provisioner's commands refuse it (provisioner.cmd.cli).
    code = "import sys; sys.modules['eventlet'] = None; import %s" % ', '.join(
        BOOT_LIBRARIES)
    env = common.user_env()
    times = []
    for _ in range(runs + 1):  # the first fills the bytecode cache
        start = time.perf_counter()
        subprocess.run([sys.executable, '-c', code], check=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def run():
    if not (GUEST / 'vmlinuz').exists():
        subprocess.run([sys.executable, str(REPO / 'tools' / 'build-guest-image'),
                        '--output', str(GUEST)], check=True)
    root = pathlib.Path('/var/lib') / ('provisioner-bench-%s' % uuid.uuid4().hex[:8])
    with common.deployment('qemu:///system', root) as (root, api):
        os.chmod(root, 0o755)
        flavors.create('tiny', 1, 128, 1)
        images.create('guest', kernel=str(GUEST / 'vmlinuz'),
                      ramdisk=str(GUEST / 'initramfs.img'))
        driver = virt.get_driver()
        net = networks.create(driver, 'net1', netutil.free_cidr(253))
        network_name = driver.network_name(net)
        try:
            _provisioner_in_process(api, 'warmup')  # probes virt_type, fills the cache
            script, virt_install, inproc, cli = [], [], [], []
            for i in range(RUNS):
                script.append(_plain_script(driver, root, net, network_name, i))
                virt_install.append(_plain_script(driver, root, net, network_name, i,
                                                  'virt-install'))
                inproc.append(_provisioner_in_process(api, 'inproc-%d' % i))
                cli.append(_provisioner_cli(api, root, 'cli-%d' % i))
        finally:
            network_service.delete_network(api.context, net['id'], functools.partial(
                maintenance_networks.unplug, driver))
            for pool in driver.pool_names():  # the deployment's own pools go too
                storage.delete_pool(driver.host.get_connection(), pool)
    samples = {'script': script, 'virt-install': virt_install, 'in-process': inproc,
               'cli': cli}
    results = {name: statistics.median(values) for name, values in samples.items()}
    for name, values in samples.items():
        print('real boot to guest ready, %-12s median %.2f s  (%s)'
              % (name, results[name], ', '.join('%.2f' % v for v in values)))
    for baseline in ('script', 'virt-install'):
        print('ratio provisioner/%s: in-process %.3f, CLI %.3f (target <= 1.0)'
              % (baseline, results['in-process'] / results[baseline],
                 results['cli'] / results[baseline]))
    floor = import_floor_s()
    print('a fresh interpreter importing what runs the flow (%s): median %.2f s; the '
          'script plus that alone is %.3fx the script, the least a CLI running the flow '
          'in its own process can reach' % (', '.join(BOOT_LIBRARIES), floor,
                                            (results['script'] + floor)
                                            / results['script']))
    return dict(results, runs=RUNS, samples=samples, import_floor_s=floor)
