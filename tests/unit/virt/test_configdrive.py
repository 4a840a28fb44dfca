"""The config drive, read back with pycdlib as a guest would see it."""

import io
import json
import os
import stat

import pycdlib

from provisioner.virt import configdrive


def _read(iso, path, kind):
    out = io.BytesIO()
    iso.get_file_from_iso_fp(out, **{kind: path})
    return out.getvalue()


def test_contents_label_and_names(tmp_path):
    path = tmp_path / 'sub' / 'disk.config'
    meta = {'uuid': 'u1', 'name': '<x>&"\''}
    network = {'links': [{'id': 'eth0', 'ethernet_mac_address': '52:54:00:00:00:01'}]}
    configdrive.build_config_drive(str(path), meta, network, b'#!/bin/sh\necho hi\n')
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640  # it holds user data
    assert os.listdir(path.parent) == ['disk.config']  # no temp file left behind

    iso = pycdlib.PyCdlib()
    iso.open(str(path))
    try:
        assert iso.pvd.volume_identifier.decode().strip() == 'config-2'
        assert iso.has_rock_ridge() and iso.has_joliet()
        base = '/openstack/latest/'
        assert json.loads(_read(iso, base + 'meta_data.json', 'rr_path')) == meta
        assert json.loads(_read(iso, base + 'network_data.json', 'rr_path')) == network
        assert _read(iso, base + 'user_data', 'rr_path') == b'#!/bin/sh\necho hi\n'
        assert json.loads(_read(iso, base + 'meta_data.json', 'joliet_path')) == meta
        names = [child.rock_ridge.name().decode()
                 for child in iso.list_children(rr_path='/openstack/latest')
                 if child.rock_ridge and child.rock_ridge.name() not in (b'.', b'..')]
        assert sorted(names) == ['meta_data.json', 'network_data.json', 'user_data']
    finally:
        iso.close()


def test_no_user_data_file_when_none(tmp_path):
    path = tmp_path / 'disk.config'
    configdrive.build_config_drive(str(path), {'uuid': 'u'}, {}, None)
    iso = pycdlib.PyCdlib()
    iso.open(str(path))
    try:
        names = {child.rock_ridge.name() for child in
                 iso.list_children(rr_path='/openstack/latest') if child.rock_ridge}
        assert b'user_data' not in names and b'meta_data.json' in names
    finally:
        iso.close()


def test_rebuild_replaces_the_file(tmp_path):
    path = str(tmp_path / 'disk.config')
    configdrive.build_config_drive(path, {'v': 1}, {}, None)
    configdrive.build_config_drive(path, {'v': 2}, {}, None)
    iso = pycdlib.PyCdlib()
    iso.open(path)
    try:
        assert json.loads(_read(iso, '/openstack/latest/meta_data.json',
                                'rr_path')) == {'v': 2}
    finally:
        iso.close()
