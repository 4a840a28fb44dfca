"""Which deployment owns what on a host: names and paths derived from the deployment.

Two deployments on one libvirtd (a test run beside a real one, two state_paths)
must never touch each other's pools, networks, bridges or domains. Everything a
deployment makes is named with its resource prefix or lives under its state_path,
so ownership is decidable without any database. The prefix is derived from what
all hosts of one deployment share (its RPC destination; all-in-one its state_path).
"""

import hashlib
import os
import threading
import urllib.parse

from oslo_config import cfg

from provisioner import conf as provisioner_conf
from provisioner import rpc
from provisioner.virt.libvirt import storage

LEGACY_PREFIX = 'provisioner'  # the fixed default before the prefix was derived
_derived = {}  # (uri, state_path) -> prefix, for this process
_lock = threading.Lock()


def deployment_seed(conf, state_path):
    """What names this deployment the same on every one of its hosts.

    Distributed, that is where its RPC goes (broker hosts and virtual host, exchange
    and worker topic; never the credentials): every engine, worker and API server of
    one deployment shares it, whatever its own state_path, so a subnet's libvirt
    network has one name on every host. All-in-one it is the state_path.
    """
    transport_url = rpc.configured_transport_url()
    if transport_url:
        url = urllib.parse.urlsplit(transport_url)
        try:
            exchange = conf.control_exchange
        except cfg.NoSuchOptError:  # registered by oslo.messaging's first transport
            exchange = 'openstack'
        return 'rpc:%s://%s%s/%s/%s' % (url.scheme, url.netloc.rpartition('@')[2],
                                        url.path, exchange, conf.worker.topic)
    return os.path.realpath(state_path)


def derive_prefix(conn, state_path, seed=None):
    """'prov-' + 8 hex digits of the deployment's seed (deployment_seed, by default
    the state_path); a host whose pool made under the old fixed prefix already serves
    this state_path keeps that prefix."""
    legacy = storage.lookup_pool(conn, '%s-instances' % LEGACY_PREFIX)
    if legacy is not None and os.path.realpath(storage.pool_path(legacy)) == \
            os.path.realpath(os.path.join(state_path, 'disks')):
        return LEGACY_PREFIX
    seed = seed or os.path.realpath(state_path)
    digest = hashlib.sha256(seed.encode()).hexdigest()
    return 'prov-%s' % digest[:8]


def resource_prefix(connect):
    """[libvirt] resource_prefix, else the one derived for this deployment
    (``connect()`` gives the libvirt connection, asked once per process and seed)."""
    conf = provisioner_conf.CONF
    if conf.libvirt.resource_prefix:
        return conf.libvirt.resource_prefix
    seed = deployment_seed(conf, conf.state_path)
    key = (conf.libvirt.connection_uri, os.path.realpath(conf.state_path), seed)
    with _lock:
        if key not in _derived:
            _derived[key] = derive_prefix(connect(), conf.state_path, seed)
        return _derived[key]


def pool_name(connect, kind, directory):
    """The name of this host's pool of ``kind`` ('instances' or 'volumes') whose
    files live in ``directory`` (under state_path).

    '<prefix>-<kind>' unless a pool of that name serves another directory: the
    hosts of one deployment share its prefix, so a second host on the same libvirtd
    (or a host given a new state_path) takes '<prefix>-<8 hex of state_path>-<kind>'.
    A pool found under either name keeps it, so names never change under a host.
    """
    prefix = resource_prefix(connect)
    conn = connect()
    digest = hashlib.sha256(os.path.realpath(state_path()).encode()).hexdigest()
    own = '%s-%s-%s' % (prefix, digest[:8], kind)
    if storage.lookup_pool(conn, own) is not None:
        return own
    plain = '%s-%s' % (prefix, kind)
    existing = storage.lookup_pool(conn, plain)
    if existing is None or os.path.realpath(storage.pool_path(existing)) == \
            os.path.realpath(directory):
        return plain
    return own


def under_state_path(path):
    """True when ``path`` lies inside this deployment's state_path."""
    root = os.path.realpath(state_path())
    return bool(path) and os.path.realpath(path).startswith(root + os.sep)


def state_path():
    return provisioner_conf.CONF.state_path
