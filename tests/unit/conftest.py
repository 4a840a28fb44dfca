"""Unit test fixtures: a private SQLite database and state path for every test."""

import logging
import os
import shutil
import sqlite3

from hypothesis import settings
import pytest

from provisioner.conf import CONF
from provisioner.db import migration
from provisioner.identity import service as identity
from tests import process
from tests.unit import fixtures

# tox runs the property tests derandomized (HYPOTHESIS_PROFILE=ci), so CI is
# repeatable; run them without it locally to explore new examples.
settings.register_profile('ci', derandomize=True)
settings.load_profile(os.environ.get('HYPOTHESIS_PROFILE', 'default'))


def _reset_process_state():
    process.reset_state()


@pytest.fixture(scope='session')
def schema_template(tmp_path_factory):
    """A migrated database made once; each test gets a copy (db-sync takes ~0.1 s)."""
    state = tmp_path_factory.mktemp('template')
    CONF([], project='provisioner', default_config_files=[])
    CONF.set_override('state_path', str(state))
    migration.db_sync()
    _reset_process_state()
    path = state / 'provisioner.sqlite'
    with sqlite3.connect(path) as conn:  # fold the WAL into the file before copying
        conn.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    CONF.reset()
    return path


@pytest.fixture(autouse=True)
def conf(tmp_path, schema_template):
    """CONF pointing at a fresh state path, database and test:/// hypervisor."""
    state = tmp_path / 'state'
    state.mkdir()
    shutil.copy(schema_template, state / 'provisioner.sqlite')
    os.chmod(state / 'provisioner.sqlite', 0o600)
    CONF([], project='provisioner', default_config_files=[])
    CONF.set_override('state_path', str(state))
    CONF.set_override('host', 'unit-host')
    # The names the unit tests read; tests/unit/virt/test_inventory.py derives its own.
    CONF.set_override('resource_prefix', 'provisioner', 'libvirt')
    # Tests register image files they write anywhere under their tmp_path.
    CONF.set_override('image_directories', [str(tmp_path)], group='image')
    _reset_process_state()
    yield CONF
    _reset_process_state()
    CONF.reset()  # also drops every override a test set


@pytest.fixture(autouse=True)
def root_logging():
    """Drop the log handlers and levels a test set up (the CLI's main() adds a stderr
    handler to the root logger): left behind, a handler writes to the test's captured
    stderr after pytest closed it ("Logging error ... closed file"), in later tests."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


@pytest.fixture
def deployment(conf):
    """The test's all-in-one deployment; its flows run in the test, nothing
    dispatches them (tests.unit.fixtures.deployment for one that does)."""
    return fixtures.deployment()


@pytest.fixture
def admin_context():
    identity.bootstrap('admin', 'admin-secret', 'admin')
    return identity.validate(identity.authenticate('admin', 'admin-secret', 'admin'))


@pytest.fixture(autouse=True)
def private_token_cache(tmp_path, monkeypatch):
    """The CLI caches tokens under $XDG_CACHE_HOME: keep each test's in its tmp_path."""
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    return tmp_path / 'cache' / 'provisioner' / 'tokens'
