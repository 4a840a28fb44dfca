"""boot --property: validated key/value metadata the guest reads from its config drive."""

import io
import json

import pycdlib


def test_boot_properties_reach_the_config_drive_meta(api, hypervisor):
    instance_id = api.create_instance('vm-p', 'tiny', 'guest', ['net1'],
                                      properties={'role': 'web', 'tier': '<front & back>'})
    api.run_boot(instance_id)
    iso = pycdlib.PyCdlib()
    iso.open(hypervisor.config_drive_path(instance_id))
    try:
        out = io.BytesIO()
        iso.get_file_from_iso_fp(out, rr_path='/openstack/latest/meta_data.json')
    finally:
        iso.close()
    assert json.loads(out.getvalue())['meta'] == {'role': 'web', 'tier': '<front & back>'}
