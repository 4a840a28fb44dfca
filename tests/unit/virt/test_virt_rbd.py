"""Root disks and volumes in RBD on a host: clones, network disks, the secret."""

import base64
import uuid

import libvirt
from lxml import etree
import pytest

from provisioner.image import rbd_store
from provisioner.virt import ceph
from provisioner.virt import spec as virt_spec
from provisioner.virt.libvirt import config
from provisioner.virt.libvirt import guest as libvirt_guest
from tests.unit import fake_ceph

SECRET = '5b8e3ed6-0d0c-4a4e-9f3b-8f1e0c2a1d11'
KEY = b'0123456789abcdef'
LOCATION = 'rbd://f/images/img/snap'


@pytest.fixture
def cluster(conf, monkeypatch, tmp_path):
    (tmp_path / 'ceph.conf').write_text('[global]\nmon host = 10.9.0.2:6789\n')
    (tmp_path / 'k').write_text('[client.provisioner]\nkey = %s\n'
                                % base64.b64encode(KEY).decode())
    conf.set_override('conf_file', str(tmp_path / 'ceph.conf'), 'ceph')
    conf.set_override('keyring', str(tmp_path / 'k'), 'ceph')
    conf.set_override('secret_uuid', SECRET, 'ceph')
    conf.set_override('images_type', 'rbd', 'libvirt')
    conf.set_override('backend', 'rbd', 'volume')
    fake = fake_ceph.install(monkeypatch)
    fake.pools['images']['img'] = fake_ceph._Data(1024 ** 2)
    fake.pools['images']['img'].snaps['snap'] = True
    return fake


def test_the_root_disk_is_a_clone_and_no_file_is_fetched(cluster, driver):
    instance = str(uuid.uuid4())
    assert driver.fetch_image('img', LOCATION, 'a' * 64) == LOCATION
    root = driver.create_root_disk(instance, LOCATION, 'raw', 1)
    assert root == 'rbd:vms/%s_disk' % instance
    assert cluster.pools['vms']['%s_disk' % instance].size == 1024 ** 3
    assert driver.create_root_disk(instance, LOCATION, 'raw', 1) == root  # adopted
    assert driver.leftovers(instance) == ['root disk ' + root]
    driver.delete_root_disk(instance)
    driver.delete_root_disk(instance)
    assert cluster.images('vms') == [] and driver.leftovers(instance) == []


def test_the_domain_reads_rbd_disks_with_the_secret(cluster, driver):
    instance = str(uuid.uuid4())
    spec = virt_spec.GuestSpec(
        uuid=instance, display_name='vm', vcpus=1, memory_mib=96,
        console_log=driver.console_log_path(instance),
        root_disk='rbd:vms/%s_disk' % instance, volumes=[('rbd:volumes/volume-v1', 'v1')])
    xml = etree.fromstring(driver.domain_xml(spec))
    disks = xml.findall('./devices/disk')
    assert [d.get('type') for d in disks] == ['network', 'network']
    root = disks[0]
    assert root.find('source').attrib == {'protocol': 'rbd',
                                          'name': 'vms/%s_disk' % instance}
    assert [h.attrib for h in root.findall('source/host')] == [
        {'name': '10.9.0.2', 'port': '6789'}]
    assert root.find('auth').get('username') == 'provisioner'
    assert root.find('auth/secret').attrib == {'type': 'ceph', 'uuid': SECRET}
    assert root.find('driver').get('type') == 'raw'
    assert base64.b64encode(KEY) not in etree.tostring(xml)
    assert xml.find('./features/acpi') is not None  # hot-plug needs it
    assert libvirt_guest._source('network', root.find('source')) \
        == 'rbd:vms/%s_disk' % instance


class FakeSecret:
    def __init__(self):
        self.values = []

    def setValue(self, value):  # noqa: N802 (libvirt's name)
        self.values.append(value)


class FakeConn:
    def __init__(self):
        self.secrets, self.defined = {}, []

    def secretLookupByUUIDString(self, uuid):  # noqa: N802
        if uuid not in self.secrets:
            error = libvirt.libvirtError('no secret')
            error.err = (libvirt.VIR_ERR_NO_SECRET,) + (None,) * 8
            raise error
        return self.secrets[uuid]

    def secretDefineXML(self, xml):  # noqa: N802
        self.defined.append(xml)
        secret = self.secrets[etree.fromstring(xml).findtext('uuid')] = FakeSecret()
        return secret


def test_the_secret_is_defined_once_and_holds_the_decoded_key(cluster):
    conn = FakeConn()
    ceph.ensure_secret(conn)
    ceph.ensure_secret(conn)
    [xml] = conn.defined
    secret = etree.fromstring(xml)
    assert (secret.get('private'), secret.find('usage').get('type')) == ('yes', 'ceph')
    assert conn.secrets[SECRET].values == [KEY, KEY]  # raw bytes: base64 decoded
    assert base64.b64encode(KEY).decode() not in xml


def test_without_a_secret_uuid_rbd_disks_are_refused(cluster, conf):
    conf.clear_override('secret_uuid', 'ceph')
    with pytest.raises(Exception, match='secret_uuid'):
        ceph.access()


def test_rbd_volumes_are_made_from_images_or_blank_and_removed(cluster, driver):
    assert driver.make_volume('v1', 1, LOCATION, 'raw') == 'rbd:volumes/volume-v1'
    assert cluster.pools['volumes']['volume-v1'].parent == ('images', 'img', 'snap')
    assert driver.make_volume('v2', 2) == 'rbd:volumes/volume-v2'
    assert driver.make_volume('v2', 3) == 'rbd:volumes/volume-v2'  # extended
    assert cluster.pools['volumes']['volume-v2'].size == 3 * 1024 ** 3
    assert driver.volume_path('v2') == 'rbd:volumes/volume-v2'
    for volume in ('v1', 'v2', 'v2'):
        driver.delete_volume(volume)
    assert cluster.images('volumes') == [] and driver.volume_path('v1') is None
    with pytest.raises(rbd_store.ImageInUse):
        cluster.pools['volumes']['c'] = fake_ceph._Data(1, ('images', 'img', 'snap'))
        rbd_store.remove('images', 'img')


def test_a_disk_in_rbd_without_access_is_refused():
    with pytest.raises(Exception, match='no Ceph access'):
        config.GuestDisk('rbd:vms/x', 'vda').to_xml()
