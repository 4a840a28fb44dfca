"""Browser fixtures: Debian's Chromium, headless, driven by Selenium through Debian's
chromium-driver, against the all-in-one provisioner-api of tests/functional/api.

The deployment (``api_cloud``: admin, flavor ``tiny``, image ``guest``, network
``net1``, real QEMU guests) is that directory's session fixture, imported here, not
copied. The browser's window is 1400 x 900, the size the pages are made to fit. Each
page the tests visit is saved as a PNG under
``$PROVISIONER_TEST_OUTPUT_DIR/screenshots/`` (default build/test-output/), which CI
keeps as artifacts.
"""

import contextlib
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests import deployment
from tests.functional import conftest as base
from tests.functional.api import conftest as api
from tests.functional.api.conftest import api_cloud  # noqa: F401 (the shared fixture)

CHROMIUM = '/usr/bin/chromium'
CHROMEDRIVER = '/usr/bin/chromedriver'
FLAGS = ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic',
         '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--window-size=1400,900',
         '--disable-dev-shm-usage')
OUTPUT_DIR = pathlib.Path(os.environ.get('PROVISIONER_TEST_OUTPUT_DIR',
                                         base.REPO / 'build' / 'test-output'))
SCREENSHOTS = OUTPUT_DIR / 'screenshots'


class Dashboard:
    """The dashboard in one browser: navigation, waits, and the page's own state
    (read with small scripts: the DOM's data-* attributes and text)."""

    def __init__(self, driver, cloud):
        self.driver = driver
        self.cloud = cloud
        self.url = cloud.url + '/dashboard/'

    # -- navigation -------------------------------------------------------------------

    def open(self, route=''):
        self.driver.get(self.url + route)

    def go(self, route):
        """Follow a hash route inside the loaded page, as a click on a link does."""
        self.driver.execute_script('window.location.hash = arguments[0];', route)

    def login(self, user=api.USER, password=api.PASSWORD, project=api.PROJECT):
        self.wait_for('#login-form')
        for field, value in (('#login-username', user), ('#login-password', password),
                             ('#login-project', project)):
            element = self.find(field)
            element.clear()
            element.send_keys(value)
        self.find('#login-submit').click()

    def logout(self):
        self.find('#logout').click()
        self.wait_for('#login-form')

    # -- reading and waiting ----------------------------------------------------------

    def find(self, css):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def text(self, css):
        """The element's textContent ('' when absent): what the page shows, as text."""
        return self.js('const e = document.querySelector(arguments[0]);'
                       'return e ? e.textContent : "";', css)

    def until(self, check, timeout=30, interval=0.2, what=None):
        """Poll check() until it returns something true; that value."""
        from selenium.common import exceptions
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = check()
            except (exceptions.NoSuchElementException,
                    exceptions.StaleElementReferenceException):
                value = None  # not rendered yet, or re-rendered under our feet
            if value:
                return value
            if time.monotonic() > deadline:
                self.screenshot('timeout')
                raise AssertionError('timed out after %d s waiting for %s; page at %s'
                                     % (timeout, what or check, self.driver.current_url))
            time.sleep(interval)

    def wait_for(self, css, timeout=30):
        return self.until(lambda: self.find_all(css), timeout, what=css)[0]

    def wait_for_text(self, css, text, timeout=30):
        return self.until(lambda: text in self.text(css), timeout,
                          what='%r in %s' % (text, css))

    def row_status(self, table, row_id):
        """The data-status of a table's row for row_id (None: no such row)."""
        return self.js('const r = [...document.querySelectorAll(arguments[0] + " tr")]'
                       '.find(r => r.dataset.id === arguments[1]);'
                       'return r ? r.dataset.status : null;', table, row_id)

    def statuses_until(self, read, final, timeout=60, what=None):
        """Sample read() until it returns `final`: every distinct value it showed, in
        order (a progress the page showed on its way)."""
        seen = []
        deadline = time.monotonic() + timeout
        while not seen or seen[-1] != final:
            value = read()
            if not seen or value != seen[-1]:
                seen.append(value)
            if time.monotonic() > deadline:
                self.screenshot('timeout')
                raise AssertionError('%s never became %r: %r' % (what or read, final, seen))
            time.sleep(0.1)
        return seen

    def confirm(self):
        """Answer the page's confirmation modal with its confirm button."""
        self.until(lambda: 'hidden' not in self.find('#modal').get_attribute('class'),
                   what='the confirmation modal')
        self.find('#modal-confirm').click()

    def screenshot(self, name):
        """The whole page (the window grown to its height for the shot), as PNG."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / ('%s.png' % name)
        size = self.driver.get_window_size()
        height = self.js('return document.documentElement.scrollHeight;')
        try:
            if height > size['height']:
                self.driver.set_window_size(size['width'], min(height + 40, 6000))
            self.driver.save_screenshot(str(path))
        finally:
            if height > size['height']:
                self.driver.set_window_size(size['width'], size['height'])
        return path

    def xss_fired(self):
        """Whether any injected markup ran: the hooks the hostile strings set."""
        return self.js('return window.__xss !== undefined || window.__alerted === true;')

    def watch_alerts(self):
        """Record alert() calls instead of showing them (a dialog would block)."""
        self.js('window.__alerted = false; window.alert = function () {'
                ' window.__alerted = true; };')

    # -- the flow on the instance page ------------------------------------------------

    _NODE_STATES = ('Object.fromEntries([...document.querySelectorAll("#flow-graph g.node")]'
                    '.map(n => [n.dataset.atom, n.dataset.state]))')
    _TIMELINE_ROWS = ('[...document.querySelectorAll("#flow-timeline g.bar-row")]'
                      '.map(r => [r.dataset.event, r.dataset.kind])')

    def node_states(self):
        return self.js('return %s;' % self._NODE_STATES)

    def timeline_rows(self):
        return self.js('return %s;' % self._TIMELINE_ROWS)

    def flow_snapshot(self):
        """(node states, timeline rows, whether the page still polls fast), read in
        one script: all three from the same render. Read one by one, a render in
        between paired an earlier graph with a later 'not live'."""
        return self.js('return [%s, %s, document.querySelector("main").dataset.live];'
                       % (self._NODE_STATES, self._TIMELINE_ROWS))


def _chromium():
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            pytest.skip('%s is missing: install chromium and chromium-driver '
                        '(bindep.txt, tools/setup-host.sh)' % path)
    try:
        from selenium import webdriver
    except ImportError:
        pytest.skip('selenium is not installed (test-requirements.txt)')
    return webdriver


@pytest.fixture(scope='session')
def browser(tmp_path_factory):
    """One headless Chromium for the whole dashboard suite."""
    webdriver = _chromium()
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp('chromium-profile')
    for flag in FLAGS + ('--user-data-dir=%s' % profile,):
        options.add_argument(flag)
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def dashboard(browser, api_cloud):  # noqa: F811 (the imported fixture)
    """The dashboard, logged out, with an empty sessionStorage."""
    page = Dashboard(browser, api_cloud)
    page.open()
    browser.delete_all_cookies()
    page.js('sessionStorage.clear(); localStorage.clear();')
    page.open('#/login')
    page.wait_for('#login-form')
    yield page
    if api_cloud.api is None or api_cloud.api.poll() is not None:
        api_cloud.start_api()  # a test that stopped it failed half-way


def restart_api(cloud, **env):
    """Restart the shared provisioner-api with extra environment (fault points);
    restart_api(cloud) brings back the plain one."""
    if cloud.api is not None and cloud.api.poll() is None:
        cloud.kill_api(signal.SIGTERM)
    else:
        cloud.kill_api()
    for key in [k for k in cloud.env if k.startswith('OS_FAULT_INJECTION__')]:
        del cloud.env[key]
    cloud.env.update(env)
    cloud.start_api()


def _without_faults(env):
    return {k: v for k, v in env.items() if not k.startswith('OS_FAULT_INJECTION__')}


class OtherApi:
    """A second all-in-one provisioner-api on the shared deployment (same database
    and state_path, its own port and log): a process the tests can stop under a
    boot while the one the browser talks to keeps serving."""

    def __init__(self, cloud, env):
        self.cloud = cloud
        self.port = deployment.free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        self.log_path = cloud.root / ('provisioner-api-%d.log' % self.port)
        environ = dict(_without_faults(cloud.env), OS_API__BIND_PORT=str(self.port),
                       OS_API__PUBLIC_URL=self.url, **env)
        with open(self.log_path, 'ab') as log:
            self.proc = subprocess.Popen(
                [sys.executable, '-m', 'provisioner.cmd.api', '--config-file',
                 str(cloud.config_file)], stdout=log, stderr=subprocess.STDOUT,
                env=environ, cwd=base.REPO)
        self.http = api.Http(self.url)
        self.wait_for_log(deployment.READY['api'])

    def log(self):
        return self.log_path.read_text(errors='replace')

    def wait_for_log(self, text, timeout=60):
        deadline = time.monotonic() + timeout
        while text not in self.log():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError('the second provisioner-api never logged %r:\n%s'
                                     % (text, self.log()[-5000:]))
            time.sleep(0.05)

    def stop(self, timeout=60):
        """SIGTERM, as a service manager stops it; its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError('the second provisioner-api ignored SIGTERM:\n%s'
                                 % self.log()[-5000:])


@contextlib.contextmanager
def other_api(cloud, **env):
    """An OtherApi with extra environment (fault points), stopped at the end."""
    other = OtherApi(cloud, env)
    try:
        yield other
    finally:
        other.stop()
