"""The dashboard's pages in a real browser: login, catalog and admin pages, the
launch form's checks, an expired session, and the API down."""

import signal

from tests.functional.api import conftest as api
from tests.functional.dashboard.conftest import restart_api


def upload_image(dashboard, tmp_path):
    """Upload a raw image from the form (progress bar to 100 %), then delete it."""
    data = tmp_path / 'disk.raw'
    data.write_bytes(b'\0' * (4 << 20))
    dashboard.find('#image-name').send_keys('dash-image')
    from selenium.webdriver.support.ui import Select
    Select(dashboard.find('#image-format')).select_by_value('raw')
    dashboard.find('#image-file').send_keys(str(data))
    dashboard.find('#image-submit').click()
    dashboard.wait_for_text('#image-progress-text', 'Uploaded 4.0 MiB', timeout=60)
    assert dashboard.find('#image-progress').get_attribute('value') == '100'
    dashboard.until(lambda: 'dash-image' in dashboard.text('#images-table')
                    and 'active' in dashboard.js(
                        'return [...document.querySelectorAll("#images-table tr")]'
                        '.filter(r => r.textContent.includes("dash-image"))'
                        '.map(r => r.textContent).join();'),
                    what='dash-image active')
    dashboard.screenshot('images')
    dashboard.find('button[data-image="dash-image"]').click()
    dashboard.confirm()
    dashboard.until(lambda: 'dash-image' not in dashboard.text('#images-table'),
                    what='dash-image deleted')


def test_login_wrong_password_then_catalog_pages(dashboard, tmp_path):
    dashboard.screenshot('login')
    # A wrong password, then an unknown project: said as a browser user reads it,
    # never with the CLI's OS_* variables (which the API's identity service names).
    for user, password, project in ((api.USER, 'not-the-password', api.PROJECT),
                                    (api.USER, api.PASSWORD, 'no-such-project')):
        dashboard.login(user, password, project)
        message = dashboard.until(lambda: dashboard.text('#login-error'),
                                  what='the login error')
        assert message == ('Login failed: wrong user name, password or project. Check '
                           'them and try again.'), message
        assert 'OS_' not in dashboard.text('body')
        assert dashboard.find_all('#login-form')
        dashboard.js('document.querySelector("#login-error").textContent = "";')

    dashboard.login()
    dashboard.wait_for('#instances-table')
    assert api.USER in dashboard.text('#who-name')
    dashboard.screenshot('instances')

    dashboard.go('#/flavors')
    dashboard.wait_for_text('#flavors-table', 'tiny')
    dashboard.screenshot('flavors')
    dashboard.go('#/images')
    dashboard.wait_for_text('#images-table', 'guest')
    upload_image(dashboard, tmp_path)
    dashboard.go('#/networks')
    dashboard.wait_for_text('#networks-table', 'net1')
    dashboard.wait_for_text('#subnets-table', dashboard.cloud.cidr)
    dashboard.screenshot('networks')
    dashboard.go('#/volumes')
    dashboard.wait_for('#volumes-table')
    dashboard.screenshot('volumes')
    dashboard.go('#/hosts')
    dashboard.wait_for_text('#hosts-table', 'functional-host')
    assert dashboard.find_all('#hosts-table .bar-fill')
    dashboard.screenshot('hosts')

    # Key pairs: generate one (its private key shown once), then delete it.
    dashboard.go('#/keypairs')
    dashboard.wait_for('#keypairs-table')
    dashboard.find('#keypair-name').send_keys('dash-key')
    dashboard.find('#keypair-submit').click()
    dashboard.wait_for_text('#keypair-private', 'PRIVATE KEY')
    dashboard.wait_for_text('#keypairs-table', 'dash-key')
    dashboard.screenshot('keypairs')
    dashboard.find('button[data-keypair="dash-key"]').click()
    dashboard.confirm()
    dashboard.until(lambda: 'dash-key' not in dashboard.text('#keypairs-table'),
                    what='dash-key gone')

    dashboard.logout()
    dashboard.go('#/flavors')
    dashboard.wait_for('#login-form')  # no session: back to login


def test_launch_form_checks_then_api_message_next_to_the_field(dashboard):
    dashboard.login()
    dashboard.wait_for('#instances-table')
    dashboard.find('#launch-open').click()
    form = dashboard.wait_for('#launch-form')
    # Checked before anything is sent.
    dashboard.find('#launch-volumes').send_keys('0, x')
    dashboard.find('#launch-submit').click()
    assert 'name' in dashboard.text('[data-error-for="name"]').lower()
    assert 'flavor' in dashboard.text('[data-error-for="flavor"]').lower()
    assert 'GiB' in dashboard.text('[data-error-for="volumes"]')
    dashboard.screenshot('launch-form-invalid')

    # Fine for the form, refused by the API: its message next to the zone field.
    from selenium.webdriver.support.ui import Select
    dashboard.find('#launch-name').send_keys('dash-bad-zone')
    Select(dashboard.find('#launch-flavor')).select_by_index(1)
    Select(dashboard.find('#launch-image')).select_by_index(1)
    volumes = dashboard.find('#launch-volumes')
    volumes.clear()
    volumes.send_keys('1')
    dashboard.find('#launch-zone').send_keys('nowhere')
    dashboard.find('#launch-submit').click()
    message = dashboard.until(lambda: dashboard.text('[data-error-for="availability_zone"]'),
                              what='the API message next to the zone')
    assert 'nowhere' in message, message
    assert form.is_displayed()
    dashboard.screenshot('launch-form-api-error')
    assert dashboard.cloud.http.find_server('dash-bad-zone') is None

    # The session ends (cookie gone): back to login, then back to the form as it was.
    dashboard.driver.delete_cookie('provisioner_session')
    dashboard.wait_for('#login-form', timeout=15)
    assert 'expired' in dashboard.text('#banner')
    dashboard.login()
    dashboard.wait_for('#launch-form')
    assert dashboard.find('#launch-name').get_attribute('value') == 'dash-bad-zone'
    assert dashboard.find('#launch-zone').get_attribute('value') == 'nowhere'
    dashboard.find('#launch-cancel').click()


def test_api_down_shows_a_clear_message(dashboard):
    dashboard.login()
    dashboard.wait_for('#instances-table')
    cloud = dashboard.cloud
    cloud.kill_api(signal.SIGTERM)
    try:
        dashboard.go('#/flavors')
        message = dashboard.until(lambda: dashboard.text('#banner'), what='the banner')
        assert 'The API at %s is not answering' % cloud.url in message, message
        assert 'Traceback' not in dashboard.text('body')
        dashboard.screenshot('api-down')
    finally:
        restart_api(cloud)
    dashboard.go('#/networks')
    dashboard.wait_for_text('#networks-table', 'net1')
