"""Neutron's provider attributes: an admin names and sees a network's segment."""

from provisioner.network import segments


def _create(client, **attributes):
    return client.post('/network/v2.0/networks', {'network': dict(attributes)})


def test_an_admin_names_the_segment_and_only_admins_see_it(admin_client,
                                                           member_client):
    made = _create(admin_client, name='seg', shared=True,
                   **{'provider:network_type': 'vxlan',
                      'provider:segmentation_id': 4242})
    assert made.status_int == 201, made.json
    net = made.json['network']
    assert (net['provider:network_type'], net['provider:segmentation_id'],
            net['provider:physical_network']) == ('vxlan', 4242, None)
    again = _create(admin_client, name='seg2', **{'provider:segmentation_id': 4242})
    assert again.status_int == 409
    assert again.json['NeutronError']['type'] == 'SegmentationIdInUse'
    shown = member_client.get('/network/v2.0/networks/' + net['id']).json['network']
    assert 'provider:network_type' not in shown
    refused = _create(member_client, name='mine',
                      **{'provider:network_type': 'vxlan'})
    assert refused.status_int == 403
    assert _create(member_client, name='mine').status_int == 201
    listed = admin_client.get('/network/v2.0/networks').json['networks']
    assert {n['name']: n['provider:segmentation_id'] for n in listed}['mine'] == 1


def test_no_vni_left_is_neutrons_503(admin_client, conf):
    conf.set_override('vni_ranges', ['1:1'], group='network')
    assert _create(admin_client, name='a').status_int == 201
    full = _create(admin_client, name='b')
    assert full.status_int == 503
    assert full.json['NeutronError'] == {
        'type': 'NoNetworkAvailable', 'message': segments.NoNetworkAvailable.msg_fmt,
        'detail': ''}
    bad = _create(admin_client, name='c', **{'provider:network_type': 'gre'})
    assert bad.status_int == 400
