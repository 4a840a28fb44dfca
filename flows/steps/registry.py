"""The host steps by registered name: what a worker runs, what an engine replays.

A message to a worker names a host step (``'domain.define'``) and a worker runs only
a step registered under that name: never whatever a message names. A deferred
step's row keeps the same name (``provisioner.engine.remote.defer``).

Release 2.1 named a step by its class path instead (worker RPC API 2.0 and 2.1,
``provisioner.worker.rpcapi``), and its deferred rows by the engine half's class
path. ``RELEASE_2_1_PATHS`` keeps those paths, frozen: a worker still accepts them
from an engine of that release, an engine capped below 2.2 sends them, and an
engine replays the rows that release wrote. Never edit an entry.
"""

from flows.steps import attach
from flows.steps import base
from flows.steps import configdrive
from flows.steps import domain
from flows.steps import image
from flows.steps import migration
from flows.steps import image_snapshot
from flows.steps import network
from flows.steps import power
from flows.steps import rebuild
from flows.steps import snapshot
from flows.steps import volume

# Every module holding a host half: importing them registers their steps.
HOST_STEP_MODULES = (image, network, volume, configdrive, domain, power, attach,
                     rebuild, snapshot, migration, image_snapshot)

UnknownStep = base.UnknownStep

# name: (the host half's class path, the engine half's class path) in release 2.1.
RELEASE_2_1_PATHS = {
    'image.fetch': ('flows.host.image_steps.FetchImage',
                    'flows.tasks.image_tasks.FetchImage'),
    'image.create_root_disk': ('flows.host.image_steps.CreateRootDisk',
                               'flows.tasks.image_tasks.CreateRootDisk'),
    'image.delete_root_disk': ('flows.host.image_steps.DeleteRootDisk',
                               'flows.tasks.image_tasks.DeleteRootDisk'),
    'network.reserve_dhcp': ('flows.host.network_steps.ReserveDhcp',
                             'flows.tasks.network_tasks.ReserveDhcp'),
    'network.release_dhcp': ('flows.host.network_steps.ReleaseDhcp',
                             'flows.tasks.network_tasks.ReleaseDhcp'),
    'volume.create': ('flows.host.volume_steps.CreateVolumes',
                      'flows.tasks.volume_tasks.CreateVolumes'),
    'volume.delete': ('flows.host.volume_steps.DeleteVolumes',
                      'flows.tasks.volume_tasks.DeleteVolumes'),
    'configdrive.build': ('flows.host.configdrive_steps.BuildConfigDrive',
                          'flows.tasks.configdrive_tasks.BuildConfigDrive'),
    'configdrive.delete': ('flows.host.configdrive_steps.DeleteConfigDrive',
                           'flows.tasks.configdrive_tasks.DeleteConfigDrive'),
    'domain.define': ('flows.host.domain_steps.DefineDomain',
                      'flows.tasks.domain_tasks.DefineDomain'),
    'domain.start': ('flows.host.domain_steps.StartDomain',
                     'flows.tasks.domain_tasks.StartDomain'),
    'domain.wait_for_boot': ('flows.host.domain_steps.WaitForBoot',
                             'flows.tasks.domain_tasks.WaitForBoot'),
    'domain.destroy': ('flows.host.domain_steps.DestroyDomain',
                       'flows.tasks.domain_tasks.DestroyDomain'),
    'domain.delete_instance_files': ('flows.host.domain_steps.DeleteInstanceFiles',
                                     'flows.tasks.domain_tasks.DeleteInstanceFiles'),
    'power.power_off': ('flows.host.power_steps.PowerOffDomain',
                        'flows.tasks.power_tasks.PowerOffDomain'),
    'power.power_on': ('flows.host.power_steps.PowerOnDomain',
                       'flows.tasks.power_tasks.PowerOnDomain'),
    'power.reboot': ('flows.host.power_steps.RebootDomain',
                     'flows.tasks.power_tasks.RebootDomain'),
    'attach.make_volume': ('flows.host.attach_steps.MakeVolume',
                           'flows.tasks.attach_tasks.MakeVolume'),
    'attach.plug': ('flows.host.attach_steps.AttachVolume',
                    'flows.tasks.attach_tasks.PlugVolume'),
    'attach.unplug': ('flows.host.attach_steps.DetachVolume',
                      'flows.tasks.attach_tasks.UnplugVolume'),
    'attach.delete_volume': ('flows.host.attach_steps.DeleteVolume',
                             'flows.tasks.attach_tasks.DeleteVolumeFile'),
}
_NAME_OF_HOST_PATH = {host: name for name, (host, _task) in RELEASE_2_1_PATHS.items()}
_NAME_OF_TASK_PATH = {task: name for name, (_host, task) in RELEASE_2_1_PATHS.items()}


def _lookup(table, key):
    """table[key]; UnknownStep for a key it lacks, or for no key at all (a list...)."""
    try:
        return table[key]
    except (KeyError, TypeError):
        raise UnknownStep(step=key)


def host_step(name):
    """The HostStep registered under name; UnknownStep for anything else."""
    return _lookup(base.REGISTERED, name)


def host_step_of_release_2_1(path):
    """The HostStep a message of release 2.1 named by class path; UnknownStep else."""
    return host_step(_lookup(_NAME_OF_HOST_PATH, path))


def host_step_named(step):
    """The HostStep a message names: a registered name, or a class path of 2.1."""
    if isinstance(step, str) and step in _NAME_OF_HOST_PATH:
        return host_step_of_release_2_1(step)
    return host_step(step)


def engine_half(task):
    """The HostTask class a deferred row names: a registered name, or the engine
    half's class path of release 2.1; UnknownStep for anything else."""
    if isinstance(task, str) and task in _NAME_OF_TASK_PATH:
        task = _NAME_OF_TASK_PATH[task]
    return _lookup(base.ENGINE_HALVES, task)


def release_2_1_path(name):
    """The class path release 2.1 sent for the host step registered as name."""
    return RELEASE_2_1_PATHS[name][0]


def release_2_1_task_path(name):
    """The class path release 2.1 wrote in a deferred row for that step."""
    return RELEASE_2_1_PATHS[name][1]
