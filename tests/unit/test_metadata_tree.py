"""The metadata service's signatures and paths, and the trees it serves (Nova's
layout), on an instance record made here: no database."""

import hashlib
import hmac
import json
import types

import pytest

from provisioner.api.metadata import tree
from provisioner.compute import guest_metadata
from provisioner.compute import instances
from provisioner import metadata_signing as signing

KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKEMWVXgbcMhFDxKVnDs8LCF6IECKgmO1ErXXfE'
       'sfKnq user@example')


def record(user_data=b'#!/bin/sh\necho hi\n', key=True):
    request = instances.BuildRequest(
        id='4f0c2a1e-0000-4000-8000-000000000001', name='web 1', project_id='p1',
        vcpus=1, ram_mib=128, disk_gib=1,
        image=types.MappingProxyType({'id': 'a1b2c3d4-0000-4000-8000-0000000000ff'}),
        network_ids=('n1',), volume_sizes=(), availability_zone='az1',
        properties=types.MappingProxyType({'role': 'web'}),
        key_name='k1' if key else None, key_data=KEY if key else None,
        hostname='web-1')
    ports = [{'id': 'port1', 'mac': 'fa:16:3e:05:00:07', 'ip': '10.5.0.7',
              'network': {'id': 'n1', 'cidr': '10.5.0.0/24', 'gateway': '10.5.0.1',
                          'dns_nameservers': ['10.5.0.2']}}]
    return guest_metadata.GuestRecord(request=request, ports=ports, user_data=user_data,
                                      flavor_name='tiny', security_groups=('default',))


def get(path, rec=None):
    body, content_type = tree.lookup(rec or record(), path)
    return body.decode(), content_type


def test_signature_is_hmac_sha256_hex_and_checked_exactly():
    expected = hmac.new(b's3cret', b'instance-1', hashlib.sha256).hexdigest()
    assert signing.sign('s3cret', 'instance-1') == expected
    assert signing.matches('s3cret', 'instance-1', expected)
    assert not signing.matches('s3cret', 'instance-2', expected)
    assert not signing.matches('other', 'instance-1', expected)
    assert not signing.matches('s3cret', 'instance-1', expected.upper())
    assert not signing.matches('s3cret', 'instance-1', None)
    assert not signing.matches('s3cret', 'instance-1', '')
    assert not signing.matches('', 'instance-1', signing.sign('', 'instance-1'))
    assert not signing.matches('s3cret', 'instance-1', 'é' * 64)


def test_source_signature_covers_network_and_address_together():
    one = signing.source_message('n1', '10.0.0.5')
    assert signing.source_message('n2', '10.0.0.5') != one
    assert signing.source_message('n1', '10.0.0.50') != one
    assert not signing.matches('s', signing.source_message('n1', '10.0.0.6'),
                               signing.sign('s', one))


def test_openstack_versions_and_files_as_nova_lists_them():
    versions, content_type = get('/openstack')
    assert content_type == 'text/plain'
    assert versions.splitlines()[0] == '2012-08-10'
    assert versions.splitlines()[-1] == 'latest'
    assert '2018-08-27' in versions.splitlines()
    assert get('/openstack/latest')[0].splitlines() == [
        'meta_data.json', 'user_data', 'vendor_data.json', 'network_data.json',
        'vendor_data2.json']
    assert get('/openstack/2012-08-10/')[0].splitlines() == ['meta_data.json',
                                                             'user_data']
    no_user_data = record(user_data=None)
    assert 'user_data' not in get('/openstack/latest', no_user_data)[0]


def test_meta_data_json_is_the_config_drives_document():
    body, content_type = get('/openstack/latest/meta_data.json')
    assert content_type == 'application/json'
    data = json.loads(body)
    assert data['uuid'] == '4f0c2a1e-0000-4000-8000-000000000001'
    assert data['hostname'] == 'web-1' and data['name'] == 'web 1'
    assert data['availability_zone'] == 'az1' and data['project_id'] == 'p1'
    assert data['meta'] == {'role': 'web'}
    assert data['public_keys'] == {'k1': KEY}
    assert data['keys'] == [{'name': 'k1', 'type': 'ssh', 'data': KEY}]
    assert len(data['random_seed']) > 600
    assert 'project_id' not in json.loads(get('/openstack/2013-04-04/meta_data.json')[0])


def test_network_data_vendor_data_and_user_data():
    network = json.loads(get('/openstack/latest/network_data.json')[0])
    assert network['networks'][0]['ip_address'] == '10.5.0.7'
    assert network['links'][0]['ethernet_mac_address'] == 'fa:16:3e:05:00:07'
    assert json.loads(get('/openstack/latest/vendor_data.json')[0]) == {}
    assert json.loads(get('/openstack/latest/vendor_data2.json')[0]) == {'static': {}}
    assert get('/openstack/latest/user_data') == ('#!/bin/sh\necho hi\n', 'text/plain')


@pytest.mark.parametrize('path', [
    '/openstack/latest/password', '/openstack/2011-01-01/meta_data.json',
    '/openstack/2013-04-04/network_data.json', '/openstack/latest/nothing',
    '/2099-01-01/meta-data/', '/latest/meta-data/nothing',
    '/latest/meta-data/public-keys/0/_name', '/latest/meta-data/hostname/x'])
def test_paths_without_a_document(path):
    with pytest.raises(tree.NotServed):
        tree.lookup(record(), path)


def test_no_user_data_is_not_served():
    for path in ('/openstack/latest/user_data', '/latest/user-data'):
        with pytest.raises(tree.NotServed):
            tree.lookup(record(user_data=None), path)


def test_ec2_tree_as_cloud_init_walks_it():
    assert get('/')[0].splitlines()[-2:] == ['2009-04-04', 'latest']
    assert get('/latest')[0].splitlines() == ['meta-data/', 'user-data']
    listing = get('/latest/meta-data/')[0].splitlines()
    for entry in ('ami-id', 'hostname', 'instance-id', 'local-hostname', 'local-ipv4',
                  'placement/', 'public-keys/', 'block-device-mapping/',
                  'instance-type', 'security-groups'):
        assert entry in listing
    assert get('/latest/meta-data/instance-id')[0] == 'i-4f0c2a1e'
    assert get('/latest/meta-data/ami-id')[0] == 'ami-a1b2c3d4'
    assert get('/latest/meta-data/hostname')[0] == 'web-1'
    assert get('/latest/meta-data/local-hostname')[0] == 'web-1'
    assert get('/latest/meta-data/local-ipv4')[0] == '10.5.0.7'
    assert get('/latest/meta-data/placement/availability-zone')[0] == 'az1'
    assert get('/latest/meta-data/instance-type')[0] == 'tiny'
    assert get('/latest/meta-data/security-groups')[0] == 'default'
    assert get('/latest/meta-data/public-keys')[0] == '0=k1'
    assert get('/latest/meta-data/public-keys/0')[0] == 'openssh-key'
    assert get('/latest/meta-data/public-keys/0/openssh-key')[0] == KEY
    assert get('/2009-04-04/user-data')[0] == '#!/bin/sh\necho hi\n'
    assert get('/ec2/2009-04-04/meta-data/hostname')[0] == 'web-1'
    assert get('/latest/meta-data/../meta-data//hostname')[0] == 'web-1'


def test_older_ec2_versions_have_fewer_entries():
    oldest = get('/1.0/meta-data/')[0].splitlines()
    assert 'local-hostname' not in oldest and 'placement/' not in oldest
    assert 'instance-id' in oldest
    assert 'placement/' in get('/2008-02-01/meta-data/')[0].splitlines()
    without_key = get('/latest/meta-data/', record(key=False))[0].splitlines()
    assert 'public-keys/' not in without_key
