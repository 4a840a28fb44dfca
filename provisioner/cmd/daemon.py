"""What both daemons share: config, logging, waiting for services, signals.

A daemon started before its database, broker or Redis is up says which one it waits
for and retries with backoff, instead of dying with a traceback.

Signals. A Python signal handler runs in the main thread between two bytecodes,
possibly while that thread holds a lock the stopping code needs (a conductor's, an
Event's), so a handler that stopped the service itself could wait forever. Here the
handler only records the signal; the service runs in its own thread and the main
thread, which does nothing but wait, stops it. SIGUSR2 writes every thread's stack to
the log (as Nova's Guru Meditation Report does), for a daemon that seems stuck.
"""

import faulthandler
import logging
import math
import signal
import socket
import sys
import threading
import time

# Threads only (see provisioner.cmd.cli): refuse eventlet before anything imports it.
sys.modules.setdefault('eventlet', None)

from provisioner.conf import CONF  # noqa: E402
from provisioner import deployment  # noqa: E402
from provisioner import rpc  # noqa: E402

LOG = logging.getLogger(__name__)

MAX_BACKOFF = 30.0
TICK = 0.1  # seconds between two looks at the signal record; bounds the reaction time

_received = []  # stop signals received; the handler only appends to it


LOG_FORMAT = '%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s'


def setup(argv, prog, distributed_only=True, log_format=LOG_FORMAT):
    from oslo_config import cfg
    CONF.register_cli_opt(cfg.BoolOpt('debug', default=False,
                                      help='Log debug detail.'))
    CONF(argv, project='provisioner', prog=prog)
    logging.basicConfig(level=logging.DEBUG if CONF.debug else logging.INFO,
                        stream=sys.stderr, format=log_format)
    for noisy in ('taskflow', 'stevedore', 'oslo_messaging', 'oslo_service', 'amqp',
                  'kombu', 'alembic'):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if distributed_only and deployment.mode() != deployment.DISTRIBUTED:
        raise SystemExit('%s: [DEFAULT] transport_url is not set; daemons serve a '
                         'distributed deployment (see README.rst, "Distributed '
                         'deployment").' % prog)
    handle_signals()


def handle_signals():
    """SIGTERM and SIGINT ask for a graceful stop; SIGUSR2 dumps the stacks."""
    faulthandler.register(signal.SIGUSR2, file=sys.stderr, all_threads=True)
    _received.clear()
    signal.signal(signal.SIGTERM, _record_signal)
    signal.signal(signal.SIGINT, _record_signal)


def _record_signal(signum, _frame):
    signal.signal(signum, signal.SIG_DFL)  # the second one ends the process at once
    _received.append(signum)


def sleep(seconds, until=None):
    """Sleep in the main thread; True as soon as a stop signal came.

    Returns False after ``seconds``, or earlier once ``until()`` is true.
    """
    deadline = time.monotonic() + seconds
    while not _received:
        left = deadline - time.monotonic()
        if left <= 0 or (until is not None and until()):
            return False
        time.sleep(min(left, TICK))
    return True


def wait_for(what, check):
    """Call check() until it succeeds, backing off; log each failure on one line."""
    delay = 1.0
    while True:
        try:
            return check()
        except Exception as exc:
            LOG.warning('%s is not reachable (%s: %s); retrying in %.0f s', what,
                        type(exc).__name__, exc, delay)
        if sleep(delay):
            LOG.info('Stopped by %s while waiting for %s', _signal_name(), what)
            raise SystemExit(0)
        delay = min(delay * 2, MAX_BACKOFF)


def serve(run, stop, name):
    """Run the service loop run() in a thread until a stop signal, then stop() it.

    The stop is bounded by [DEFAULT] graceful_shutdown_timeout: past it the threads'
    stacks go to the log and the process exits with status 1.
    """
    failure = []

    def target():
        try:
            run()
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=target, name=name)
    thread.start()
    if sleep(math.inf, until=lambda: not thread.is_alive()):
        timeout = CONF.graceful_shutdown_timeout
        LOG.info('Received %s: stopping gracefully%s (send it again to exit at once)',
                 _signal_name(), ' within %d s' % timeout if timeout else '')
        if timeout:
            faulthandler.dump_traceback_later(timeout, exit=True, file=sys.stderr)
        stop()
    thread.join()
    if failure:
        raise failure[0]


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


def _signal_name():
    return signal.Signals(_received[0]).name if _received else 'a signal'
