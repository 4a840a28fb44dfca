"""Daemon signals: SIGTERM stops the service from the main thread, bounded in time."""

import faulthandler
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from provisioner.cmd import daemon


@pytest.fixture
def signals():
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    daemon.handle_signals()
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)
    # A stop arms the bound on the whole shutdown ([DEFAULT] graceful_shutdown_timeout:
    # stacks, then exit 1). A daemon exits well before it; this process does not, and
    # was ended by it a minute later, in whatever test ran then.
    faulthandler.cancel_dump_traceback_later()


def _signal_me_soon(sig=signal.SIGTERM, delay=0.2):
    threading.Timer(delay, os.kill, (os.getpid(), sig)).start()


def test_sigterm_stops_the_service_once_and_a_second_one_would_end_the_process(signals):
    stopped = threading.Event()
    stop_calls = []

    def stop():
        # The old handler ran this inside the signal handler, where a lock the
        # interrupted main thread held could never be released.
        stop_calls.append(threading.current_thread() is threading.main_thread())
        stopped.set()

    _signal_me_soon()
    daemon.serve(lambda: stopped.wait(30), stop, 'unit-service')
    assert stop_calls == [True]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_a_service_that_ends_by_itself_returns_and_its_error_is_raised(signals):
    daemon.serve(lambda: None, lambda: pytest.fail('nothing to stop'), 'unit-service')

    def broken():
        raise RuntimeError('conductor died')

    with pytest.raises(RuntimeError, match='conductor died'):
        daemon.serve(broken, lambda: None, 'unit-service')


def test_sigint_while_waiting_for_a_service_exits_0(signals):
    def never_up():
        raise ConnectionRefusedError('connection refused')

    _signal_me_soon(signal.SIGINT)
    with pytest.raises(SystemExit) as exc:
        daemon.wait_for('Redis', never_up)
    assert exc.value.code == 0


def test_a_stop_that_hangs_ends_after_the_timeout_with_the_stacks_in_the_log(tmp_path):
    script = textwrap.dedent('''
        import logging, threading
        from provisioner.cmd import daemon
        from provisioner.conf import CONF
        CONF([], project='provisioner', default_config_files=[])
        CONF.set_override('graceful_shutdown_timeout', 1)
        logging.basicConfig(level=logging.INFO)
        daemon.handle_signals()
        print('serving', flush=True)
        # A service whose stop() is ignored: its thread never ends.
        daemon.serve(threading.Event().wait, lambda: None, 'stuck-service')
    ''')
    proc = subprocess.Popen([sys.executable, '-c', script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == 'serving\n'
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert 'stopping gracefully within 1 s' in err
    dump = err.split('Timeout (0:00:01)!', 1)[1]
    assert dump.count('Thread 0x') >= 2  # every thread's stack
    assert 'in serve' in dump  # the main thread, waiting for the service to stop
