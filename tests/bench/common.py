"""What the benchmarks share: a private all-in-one deployment and timing helpers."""

import compileall
import contextlib
import os
import pathlib
import secrets
import shutil
import statistics
import tempfile

from provisioner.compute import api as compute_api
from provisioner.conf import CONF
from provisioner.db import migration
from provisioner.engine import deployments
from provisioner.identity import service as identity
from tests import process

# The guest image tools/build-guest-image makes (real_boot registers it).
GUEST_IMAGE = pathlib.Path(__file__).resolve().parents[2] / 'build' / 'guest-image'


def user_env(base=None):
    """The environment of a CLI process as a user runs it: with Python's bytecode
    cache. tox's setenv turns the cache off for the tests (nothing is written into the
    tree); a user's installed CLI compiles its modules once, so the benches do too."""
    env = dict(os.environ if base is None else base)
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    repo = GUEST_IMAGE.parents[1]
    for package in ('provisioner', 'flows'):
        compileall.compile_dir(str(repo / package), quiet=1)
    return env


def summary(samples_ms):
    samples = sorted(samples_ms)
    p90 = samples[min(len(samples) - 1, int(round(0.9 * (len(samples) - 1))))]
    return 'median %.1f ms, p90 %.1f ms, min %.1f ms (n=%d)' % (
        statistics.median(samples), p90, samples[0], len(samples))


@contextlib.contextmanager
def deployment(connection_uri, root=None):
    """CONF, database and admin context of a throwaway all-in-one deployment."""
    root = pathlib.Path(root or tempfile.mkdtemp(prefix='provisioner-bench-'))
    root.mkdir(parents=True, exist_ok=True)
    CONF([], project='provisioner', default_config_files=[])
    CONF.set_override('state_path', str(root / 'state'))
    CONF.set_override('host', 'bench-host')
    CONF.set_override('connection_uri', connection_uri, 'libvirt')
    CONF.set_override('resource_prefix', 'pb%s' % secrets.token_hex(3), 'libvirt')
    # Benches register image files they write under root (or the built guest image).
    CONF.set_override('image_directories', [str(root), str(GUEST_IMAGE)], 'image')
    os.makedirs(CONF.state_path, mode=0o755, exist_ok=True)
    migration.db_sync()
    identity.bootstrap('admin', 'bench', 'admin')
    context = identity.validate(identity.authenticate('admin', 'bench', 'admin'))
    try:
        yield root, compute_api.ComputeAPI(context, deployments.all_in_one())
    finally:
        process.reset_state()
        CONF.reset()
        shutil.rmtree(root, ignore_errors=True)
