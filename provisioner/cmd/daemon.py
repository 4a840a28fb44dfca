"""What both daemons share: config, logging, waiting for services, signals.

A daemon started before its database, broker or Redis is up says which one it waits
for and retries with backoff, instead of dying with a traceback.
"""

import logging
import signal
import socket
import sys
import threading
import time

# Threads only (see provisioner.cmd.cli): refuse eventlet before anything imports it.
sys.modules.setdefault('eventlet', None)

from provisioner.conf import CONF  # noqa: E402
from provisioner import rpc  # noqa: E402

LOG = logging.getLogger(__name__)

MAX_BACKOFF = 30.0


def setup(argv, prog):
    from oslo_config import cfg
    CONF.register_cli_opt(cfg.BoolOpt('debug', default=False,
                                      help='Log debug detail.'))
    CONF(argv, project='provisioner', prog=prog)
    logging.basicConfig(
        level=logging.DEBUG if CONF.debug else logging.INFO, stream=sys.stderr,
        format='%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s')
    for noisy in ('taskflow', 'stevedore', 'oslo_messaging', 'oslo_service', 'amqp',
                  'kombu'):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if not rpc.is_distributed():
        raise SystemExit('%s: [DEFAULT] transport_url is not set; daemons serve a '
                         'distributed deployment (see README.rst, "Distributed '
                         'deployment").' % prog)


def wait_for(what, check, stop_event=None):
    """Call check() until it succeeds, backing off; log each failure on one line."""
    delay = 1.0
    while True:
        try:
            return check()
        except Exception as exc:
            LOG.warning('%s is not reachable (%s: %s); retrying in %.0f s', what,
                        type(exc).__name__, exc, delay)
        if stop_event is not None:
            if stop_event.wait(delay):
                LOG.info('Stopped while waiting for %s', what)
                raise SystemExit(0)
        else:
            time.sleep(delay)
        delay = min(delay * 2, MAX_BACKOFF)


def check_database():
    from provisioner.db import api as db_api
    from provisioner.db import migration
    with db_api.connection() as conn:
        conn.exec_driver_sql('SELECT 1')
    if migration.current_revision() != migration.SCHEMA_HEAD:
        raise RuntimeError("schema is not up to date: run 'provisioner db-sync'")


def check_broker():
    """A TCP connection to each broker in transport_url (oslo.messaging would hang)."""
    url = rpc.messaging().TransportURL.parse(CONF, CONF.transport_url)
    for host in url.hosts:
        with socket.create_connection((host.hostname, host.port or 5672), timeout=3):
            pass


def stop_event():
    """An event SIGTERM/SIGINT set while the daemon still waits for its services."""
    event = threading.Event()
    on_signals(event.set)
    return event


def on_signals(stop):
    """SIGTERM and SIGINT call stop() once; a second signal exits at once."""
    def handler(signum, _frame):
        LOG.info('Received %s: stopping gracefully (send it again to exit at once)',
                 signal.Signals(signum).name)
        signal.signal(signum, signal.SIG_DFL)
        stop()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
