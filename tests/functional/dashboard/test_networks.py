"""Networks from the dashboard: a network with its subnet created from the form
(checked before it is sent, the API's refusal shown next to the field), offered at
once by the launch form, then deleted; a network name made of markup (Neutron takes
any name) stays text wherever the page shows it."""

from selenium.webdriver.support.ui import Select

from tests import netutil

HOSTILE_NETWORK = '<img src=x onerror=window.__xss=4>net'
NAME = 'dash-net'


def _networks(http, name):
    return [n for n in http.request('GET', '/network/v2.0/networks').json()['networks']
            if n['name'] == name]


def _fill(dashboard, values):
    for css, value in values.items():
        element = dashboard.find(css)
        element.clear()
        element.send_keys(value)


def _free_cidr(*taken):
    cidr = netutil.free_cidr()
    while cidr in taken:
        cidr = netutil.free_cidr()
    return cidr


def test_create_a_network_launch_on_it_then_delete_it(dashboard):
    cloud = dashboard.cloud
    dashboard.login()
    dashboard.wait_for('#instances-table')
    dashboard.watch_alerts()
    dashboard.go('#/networks')
    dashboard.wait_for_text('#networks-table', 'net1')

    # Checked before anything is sent.
    _fill(dashboard, {'#subnet-cidr': '10.1.2.0/33'})
    Select(dashboard.find('#subnet-gateway-mode')).select_by_value('address')
    _fill(dashboard, {'#subnet-gateway': 'router'})
    dashboard.find('#network-submit').click()
    assert 'name' in dashboard.text('[data-error-for="name"]')
    assert 'is not an IPv4 CIDR' in dashboard.text('[data-error-for="cidr"]')
    assert 'IPv4 address' in dashboard.text('[data-error-for="gateway"]')

    cidr = _free_cidr(cloud.cidr)
    # A name made of markup: Neutron takes any name, and the page shows it as the
    # characters it is made of, in the table and in the launch form.
    hostile_cidr = _free_cidr(cloud.cidr, cidr)
    _fill(dashboard, {'#network-name': HOSTILE_NETWORK, '#subnet-cidr': hostile_cidr})
    Select(dashboard.find('#subnet-gateway-mode')).select_by_value('first')
    dashboard.find('#network-submit').click()
    dashboard.wait_for_text('#networks-table', HOSTILE_NETWORK)
    [hostile] = _networks(cloud.http, HOSTILE_NETWORK)
    dashboard.go('#/instances')
    dashboard.wait_for('#launch-open').click()
    dashboard.wait_for('#launch-networks input[value="%s"]' % hostile['id'])
    assert HOSTILE_NETWORK in dashboard.text('#launch-networks')
    assert not dashboard.find_all('#launch-form img')
    dashboard.find('#launch-cancel').click()
    assert cloud.http.request('DELETE', '/network/v2.0/networks/%s'
                              % hostile['id']).status_code == 204
    dashboard.go('#/networks')
    dashboard.until(lambda: HOSTILE_NETWORK not in dashboard.text('#networks-table'),
                    what='the markup-named network gone')

    # Fine for the form, refused by the API (a link-local range): said next to the
    # CIDR, and the network made before the subnet is taken back.
    _fill(dashboard, {'#network-name': NAME, '#subnet-cidr': '169.254.10.0/24'})
    dashboard.find('#network-submit').click()
    message = dashboard.until(lambda: dashboard.text('[data-error-for="cidr"]'),
                              what='the API refusal next to the CIDR')
    assert 'link-local' in message and '169.254.10.0/24' in message, message
    dashboard.screenshot('network-form-api-error')
    assert _networks(cloud.http, NAME) == []

    # A free range, no gateway, no DHCP.
    _fill(dashboard, {'#subnet-cidr': cidr})
    Select(dashboard.find('#subnet-gateway-mode')).select_by_value('none')
    dashboard.find('#subnet-dhcp').click()
    dashboard.find('#network-submit').click()
    dashboard.wait_for_text('#networks-table', NAME)
    dashboard.wait_for_text('#subnets-table', cidr)
    network = _networks(cloud.http, NAME)[0]
    subnet = cloud.http.request('GET', '/network/v2.0/subnets/%s'
                                % network['subnets'][0]).json()['subnet']
    assert (subnet['cidr'], subnet['gateway_ip'], subnet['enable_dhcp'],
            subnet['name']) == (cidr, None, False, NAME + '-subnet')
    row = dashboard.text('#subnets-table tr[data-id="%s"]' % subnet['id'])
    assert 'none' in row and 'no' in row, row
    # Sent: the form is back to its defaults.
    assert dashboard.find('#network-name').get_attribute('value') == ''
    assert dashboard.find('#subnet-dhcp').is_selected()
    dashboard.screenshot('networks-created')

    # The launch form offers it, its name as text.
    dashboard.go('#/instances')
    dashboard.wait_for('#launch-open').click()
    dashboard.wait_for('#launch-form')
    box = dashboard.wait_for('#launch-networks input[value="%s"]' % network['id'])
    assert NAME in dashboard.text('#launch-networks')
    assert not box.is_selected()  # two networks now: none chosen for the user
    dashboard.find('#launch-cancel').click()

    # Deleted, subnet first then the network.
    dashboard.go('#/networks')
    dashboard.wait_for('button[data-subnet="%s"]' % subnet['id']).click()
    dashboard.confirm()
    dashboard.until(lambda: cidr not in dashboard.text('#subnets-table'),
                    what='the subnet deleted')
    dashboard.find('button[data-network="%s"]' % network['id']).click()
    dashboard.confirm()
    dashboard.until(lambda: NAME not in dashboard.text('#networks-table'),
                    what='the network deleted')
    assert _networks(cloud.http, NAME) == []
    assert not dashboard.find_all('#networks-list img, #network-form img')
    assert not dashboard.xss_fired()


def test_deleting_a_network_in_use_shows_the_refusal(dashboard):
    """net1 is the operator's (the fixture's admin made it; this user is admin, so
    the API would let it go): a network another project owns is refused to a
    member, and the page says why."""
    from tests.functional.dashboard.test_instance import other_project_user
    cloud = dashboard.cloud
    user, password, project = other_project_user(cloud.http, 'dash-net-member')
    dashboard.login(user, password, project)
    dashboard.wait_for('#instances-table')
    dashboard.go('#/networks')
    net1 = [n for n in cloud.http.request('GET', '/network/v2.0/networks').json()[
        'networks'] if n['name'] == 'net1'][0]
    button = dashboard.wait_for('button[data-network="%s"]' % net1['id'])
    button.click()
    dashboard.confirm()
    message = dashboard.until(lambda: dashboard.text('#networks-message'),
                              what='the refusal')
    assert message.startswith('Delete network net1 refused: '), message
    assert _networks(cloud.http, 'net1')
