"""The whole boot flow on the real driver and a test:/// hypervisor."""

import os

import pytest
from taskflow import states as tf_states

from provisioner.compute import instances
from provisioner.compute import states
from provisioner.engine import persistence
from provisioner.engine import runner
from provisioner import exception
from tests.unit.flows.conftest import boot_request
from tests.unit.flows.conftest import leftovers
from tests.unit.flows.conftest import run_until
from tests import probes

from flows import constants as c

BOOT_STEPS = [c.LIFECYCLE_GUARD, c.HOLD_QUOTA, c.SELECT_HOSTS, c.CLAIM_RESOURCES,
              c.FETCH_IMAGE, c.CREATE_ROOT_DISK, c.ALLOCATE_PORTS, c.RESERVE_DHCP,
              c.CREATE_VOLUMES,
              c.BUILD_CONFIG_DRIVE, c.DEFINE_DOMAIN, c.START_DOMAIN, c.WAIT_FOR_BOOT,
              c.MARK_ACTIVE]


def test_boot_goes_active_with_everything_in_place(api, hypervisor):
    instance_id = boot_request(api, volumes=(1, 2))
    info = api.run_boot(instance_id)
    assert (info['vm_state'], info['task_state'], info['power_state']) == \
        (states.ACTIVE, None, states.RUNNING)
    assert info['host'] == 'unit-host'
    assert [a['ip'] for a in info['addresses']] == ['10.66.0.2']
    assert [v['size_gib'] for v in info['volumes']] == [1, 2]
    assert hypervisor.power_state(instance_id) == 'running'
    [port] = info['addresses']
    dhcp = hypervisor.dhcp_hosts({'id': _net_id(), 'name': 'net1'})
    assert [(h['mac'], h['ip']) for h in dhcp] == [(port['mac'], port['ip'])]
    names = [e['name'] for e in info['events']]
    assert sorted(names) == sorted(BOOT_STEPS)
    # Parallel preparation may interleave; what depends on what may not.
    for before, after in ((c.CLAIM_RESOURCES, c.FETCH_IMAGE),
                          (c.FETCH_IMAGE, c.CREATE_ROOT_DISK),
                          (c.ALLOCATE_PORTS, c.RESERVE_DHCP),
                          (c.ALLOCATE_PORTS, c.BUILD_CONFIG_DRIVE),
                          (c.CREATE_VOLUMES, c.DEFINE_DOMAIN),
                          (c.BUILD_CONFIG_DRIVE, c.DEFINE_DOMAIN),
                          (c.WAIT_FOR_BOOT, c.MARK_ACTIVE)):
        assert names.index(before) < names.index(after)
    assert names[0] == c.LIFECYCLE_GUARD and names[-1] == c.MARK_ACTIVE
    assert all(e['result'] == 'Success' for e in info['events'])


def _net_id():
    from provisioner.db import api as db_api
    from provisioner.db import models
    with db_api.transaction() as session:
        return session.query(models.Network.id).filter_by(name='net1').scalar()


def test_task_states_move_forward_in_the_documented_order(api, monkeypatch):
    from provisioner.compute import instances
    seen = []
    original = instances.advance_task_state

    def spy(instance_id, task_state):
        seen.append(task_state)
        original(instance_id, task_state)

    monkeypatch.setattr(instances, 'advance_task_state', spy)
    api.run_boot(boot_request(api))
    assert seen == [states.SCHEDULING, states.NETWORKING, states.BLOCK_DEVICE_MAPPING,
                    states.SPAWNING]


def test_delete_removes_everything(api, hypervisor, conf):
    instance_id = boot_request(api)
    api.run_boot(instance_id)
    lock_file = os.path.join(conf.state_path, 'locks', '%s.lock' % instance_id)
    assert os.path.exists(lock_file)
    info = api.delete('vm1')
    assert info['vm_state'] == states.DELETED
    assert leftovers(hypervisor, api, instance_id) == []
    assert not os.path.exists(lock_file)  # its lock file goes with it
    with pytest.raises(exception.NotFound):
        api.show('vm1')


@pytest.mark.parametrize('step', BOOT_STEPS[:-1])
def test_failure_after_any_step_rolls_everything_back(api, hypervisor, conf, step):
    conf.set_override('fail_after_step', [step], 'fault_injection')
    instance_id = boot_request(api)
    info = api.run_boot(instance_id)
    assert info['vm_state'] == states.ERROR
    assert info['fault'] == '%s: Injected fault at step %s' % (step, step)
    assert leftovers(hypervisor, api, instance_id) == []
    assert runner.boot_flow_state(_flow_uuid(instance_id)) == tf_states.REVERTED


def _flow_uuid(instance_id):
    from provisioner.db import api as db_api
    from provisioner.db import models
    with db_api.transaction() as session:
        return session.get(models.Instance, instance_id).flow_uuid


def _interrupt_after(instance_id, step):
    """Run the persisted boot until `step` finishes, then stop as a dying process would."""
    flow_detail = runner.boot_flow_detail(instance_id, _flow_uuid(instance_id))
    run_until(runner._load_engine(flow_detail, instance_id), step)


@pytest.mark.parametrize('step', [c.CLAIM_RESOURCES, c.CREATE_VOLUMES, c.DEFINE_DOMAIN,
                                  c.START_DOMAIN])
def test_interrupted_boot_resumes_to_active(api, hypervisor, step):
    instance_id = boot_request(api)
    _interrupt_after(instance_id, step)
    info = api.resume(instance_id)
    assert info['vm_state'] == states.ACTIVE
    assert hypervisor.power_state(instance_id) == 'running'
    # Events here come from the resumed run only: what finished before the
    # interruption did not run again, what came after it did.
    names = [e['name'] for e in info['events']]
    assert c.SELECT_HOSTS not in names and step not in names
    assert names[-1] == c.MARK_ACTIVE


@pytest.mark.parametrize('step', [c.CLAIM_RESOURCES, c.CREATE_VOLUMES, c.START_DOMAIN])
def test_interrupted_boot_rolls_back_to_nothing(api, hypervisor, step):
    instance_id = boot_request(api)
    _interrupt_after(instance_id, step)
    info = api.rollback(instance_id)
    assert info['vm_state'] == states.ERROR
    assert 'rolled back at the user\'s request' in info['fault']
    assert leftovers(hypervisor, api, instance_id) == []


def test_finished_boot_cannot_be_resumed_or_rolled_back(api):
    instance_id = boot_request(api)
    api.run_boot(instance_id)
    for action in (api.resume, api.rollback):
        with pytest.raises(exception.Conflict) as err:
            action('vm1')
        assert 'only an interrupted boot' in str(err.value)


def test_unknown_references_create_nothing(api):
    from provisioner.db import api as db_api
    from provisioner.db import models
    for kwargs, message in (
            ({'flavor': 'nope'}, 'Flavor nope not found'),
            ({'image': 'nope'}, 'Image nope not found'),
            ({'networks': ['nope']}, 'Network nope not found'),
            ({'name': 'vm\n1'}, 'must not contain control characters'),
            ({'user_data': b'x' * 65537}, 'the limit is 65536'),
            ({'volume_sizes': [0]}, 'at least 1')):
        request = dict(name='vm1', flavor='tiny', image='guest', networks=['net1'],
                       volume_sizes=[], user_data=None)
        request.update(kwargs)
        with pytest.raises(exception.ProvisionerError) as err:
            api.create_instance(**request)
        assert message in str(err.value)
    with db_api.transaction() as session:
        assert session.query(models.Instance).count() == 0


def test_no_host_with_room_ends_in_error_with_the_reason(api, hypervisor):
    from provisioner.catalog import flavors
    from provisioner.quota import counters
    flavors.create('huge', 1, 4 * 1024 * 1024, 1)
    counters.set_limits(api.context.project_id, ram_mib=-1)
    instance_id = api.create_instance('big', 'huge', 'guest', ['net1'])
    info = api.run_boot(instance_id)
    assert info['vm_state'] == states.ERROR
    assert 'No valid host was found' in info['fault']
    assert 'RamFilter removed 1' in info['fault']
    assert leftovers(hypervisor, api, instance_id) == []


def test_boot_whose_flow_was_never_saved_still_resumes(api, hypervisor):
    """A CLI killed between recording the instance and saving its flow."""
    instance_id = boot_request(api)
    persistence.destroy_logbook(instance_id)
    assert runner.boot_flow_state(_flow_uuid(instance_id)) == tf_states.PENDING
    assert api.resume(instance_id)['vm_state'] == states.ACTIVE


def test_step_left_running_by_a_dead_process_runs_again_and_is_shown(api, hypervisor):
    """The state kill -9 leaves: a step RUNNING (its side effect maybe done)."""
    instance_id = boot_request(api)
    _interrupt_after(instance_id, c.CLAIM_RESOURCES)
    flow_detail = runner.boot_flow_detail(instance_id, _flow_uuid(instance_id))
    [atom] = [ad for ad in flow_detail if ad.name == c.ALLOCATE_PORTS]
    from provisioner.network import ipam
    ipam.allocate_ports(instance_id, instances.build_request(instance_id).network_ids)
    atom.state = tf_states.RUNNING
    persistence.get_backend().get_connection().update_atom_details(atom)

    info = api.resume(instance_id)
    assert info['vm_state'] == states.ACTIVE
    assert len(info['addresses']) == 1  # the re-run adopted the port, made no second
    events = [(e['name'], e['result']) for e in info['events']]
    assert (c.ALLOCATE_PORTS, 'Interrupted') in events
    assert (c.ALLOCATE_PORTS, 'Success') in events


def test_disk_image_boots_from_an_overlay_on_the_cached_image(api, hypervisor, tmp_path):
    import struct
    from provisioner.catalog import images
    disk = tmp_path / 'disk.qcow2'
    # A minimal qcow2 header: magic, version 3, virtual size 1 GiB.
    disk.write_bytes(b'QFI\xfb' + struct.pack('>I', 3) + b'\0' * 16
                     + struct.pack('>Q', 1024 ** 3) + b'\0' * 72)
    image = images.create('disk-image', file=str(disk))
    assert image['disk_format'] == 'qcow2'
    instance_id = api.create_instance('vm-disk', 'tiny', 'disk-image', ['net1'])
    info = api.run_boot(instance_id)
    assert info['vm_state'] == states.ACTIVE, info['fault']
    xml = hypervisor.host.get_connection().lookupByUUIDString(instance_id).XMLDesc(0)
    assert '<kernel>' not in xml and "<boot dev='hd'/>" in xml
    assert 'instance-%s-root.qcow2' % instance_id in xml
    api.delete(instance_id)
    assert leftovers(hypervisor, api, instance_id) == []


def test_projects_see_only_their_own_instances(api, hypervisor):
    from provisioner.compute import api as compute_api
    from provisioner.identity import service as identity
    boot_request(api, name='web1')
    identity.bootstrap('bob', 'pw-bob', 'other')
    bob = compute_api.ComputeAPI(identity.validate(
        identity.authenticate('bob', 'pw-bob', 'other')), api.deployment)
    theirs = api.show('web1')['id']
    assert bob.list() == []
    with pytest.raises(exception.NotFound):
        bob.show('web1')  # a name resolves in one's own project only
    bob.create_instance('web1', 'tiny', 'guest', ['net1'])  # the same name is free
    assert bob.show('web1')['id'] != theirs
    assert api.show('web1')['id'] == theirs
    # bob is admin of his project: another project's instance is reachable by id.
    assert bob.show(theirs)['id'] == theirs
    member = identity.RequestContext(bob.context.user_id, 'bob', bob.context.project_id,
                                     'other', ('member',))
    with pytest.raises(exception.NotFound):
        compute_api.ComputeAPI(member, api.deployment).show(theirs)


@pytest.mark.parametrize('name', ['<domain type="kvm">', '</name><devices/>',
                                  "vm'; rm -rf /", '$(reboot)', '`id`',
                                  '../../etc/passwd', 'vm\u00e9', 'web 1'])
def test_names_are_data(api, hypervisor, name):
    """Markup, shell and path characters in a name are kept verbatim and touch
    nothing: the domain is instance-<uuid>, the hostname a folded label."""
    from provisioner import naming
    instance_id = api.create_instance(name, 'tiny', 'guest', ['net1'])
    info = api.run_boot(instance_id)
    assert (info['name'], info['vm_state']) == (name, 'active')
    assert api.show(name)['id'] == instance_id
    label = naming.hostname(name)
    assert label and all(c.isalnum() or c == '-' for c in label)
    assert probes.domain_exists(hypervisor, instance_id)
