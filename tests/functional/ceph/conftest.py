"""The one Ceph cluster of a test run (tools/ceph-cluster), shared by every test that
needs one: it runs in a network namespace of its own, joined to this one by a veth
pair (as a storage host on the hosts' underlay). At the end no pool may hold an
image: each test removes what it made."""

import pathlib
import secrets
import shutil

import pytest

from tests import ceph
from tests import netutil


@pytest.fixture(scope='session')
def ceph_workdir():
    """A directory libvirt's QEMU can reach (console logs), removed at the end."""
    root = pathlib.Path('/var/lib') / ('provisioner-test-ceph-%s' % secrets.token_hex(4))
    root.mkdir(mode=0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope='session')
def shared_cluster(ceph_workdir):
    missing = ceph.missing_binaries()
    if missing:
        pytest.skip('Ceph is not installed (no %s): run tools/setup-host.sh'
                    % ', '.join(missing))
    with ceph.throwaway_namespace(netutil.free_cidr(254)) as (netns, address, _):
        with ceph.ceph_cluster(ceph_workdir / 'ceph', netns=netns,
                               address=address) as cluster:
            yield cluster
            left = {pool: cluster.rbd('ls', pool).stdout.split() for pool in cluster.pools}
            assert left == {pool: [] for pool in cluster.pools}, 'images left behind'
