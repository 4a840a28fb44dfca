"""A private distributed deployment on this machine's services, for tests and benches.

Its own PostgreSQL database, RabbitMQ exchange and topics (queues auto-deleted, its
notification queues deleted), Redis jobboard namespace; engines, workers and
provisioner-api (``start('api', host, extra_conf=api_conf(free_port()))``) run as the
real daemons in subprocesses under host names of their own. Given namespace hosts
(tests/hosts.py), each worker runs inside one of them against that host's own
libvirtd, and reaches RabbitMQ and provisioner-api over the hosts' underlay, as on
a hypervisor of its own. ``destroy()`` removes all of it.
"""

import contextlib
import os
import pathlib
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import warnings

REPO = pathlib.Path(__file__).resolve().parents[1]
PG_ADMIN_DSN = os.environ.get('PROVISIONER_TEST_PG',
                              'postgresql://postgres@127.0.0.1/postgres')
RABBIT_URL = os.environ.get('PROVISIONER_TEST_RABBIT',
                            'rabbit://guest:guest@127.0.0.1:5672/')
REDIS_URL = os.environ.get('PROVISIONER_TEST_REDIS', 'redis://127.0.0.1:6379/0')
# What each daemon logs once it serves (provisioner-api: "provisioner-api (<mode>)
# ready: listening on http://HOST:PORT").
READY = {'engine': 'ready: reports on topic', 'worker': 'serving',
         'api': 'ready: listening on http://'}
# serve_images(): the provisioner-api workers download images from, as this user.
IMAGE_API = 'image-api'
SERVICE_USER = 'provisioner-service'


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now (for provisioner-api)."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def api_conf(port, address='127.0.0.1'):
    """The per-daemon config of a provisioner-api on address:port."""
    return ('[api]\nbind_host = %s\nbind_port = %d\n'
            'public_url = http://%s:%d\n' % (address, port, address, port))


def _through(url, address):
    """A broker URL with its host replaced by ``address`` (credentials kept)."""
    parts = urllib.parse.urlsplit(url)
    credentials = parts.netloc.rpartition('@')[0]
    port = parts.port or 5672
    return parts._replace(netloc='%s%s:%d' % (credentials + '@' if credentials else '',
                                              address, port)).geturl()


class Unavailable(Exception):
    """A service this deployment needs is not reachable here."""


def _pg_admin(sql):
    import psycopg2
    try:
        conn = psycopg2.connect(PG_ADMIN_DSN)
    except psycopg2.OperationalError as exc:
        raise Unavailable('PostgreSQL is not reachable at %s: %s' % (PG_ADMIN_DSN, exc))
    conn.autocommit = True
    try:
        conn.cursor().execute(sql)
    finally:
        conn.close()


def database_url(name):
    """SQLAlchemy URL of database ``name`` on the server of PG_ADMIN_DSN."""
    server = PG_ADMIN_DSN.rsplit('/', 1)[0].replace('postgresql://',
                                                    'postgresql+psycopg2://', 1)
    return '%s/%s' % (server, name)


@contextlib.contextmanager
def throwaway_database(prefix):
    """A new PostgreSQL database for one test or bench run, dropped after it."""
    name = '%s_%s' % (prefix, secrets.token_hex(4))
    _pg_admin('CREATE DATABASE %s' % name)
    try:
        yield database_url(name)
    finally:
        _pg_admin('DROP DATABASE IF EXISTS %s WITH (FORCE)' % name)


# oslo.messaging's notification priorities: the queue of each is <topic>.<priority>.
_NOTIFICATION_PRIORITIES = ('audit', 'debug', 'info', 'warn', 'error', 'critical',
                            'sample')


def _delete_queues(names):
    """Delete RabbitMQ queues (deleting one that does not exist succeeds)."""
    import kombu
    # oslo.messaging's rabbit:// is kombu's amqp://.
    with kombu.Connection('amqp://' + RABBIT_URL.split('://', 1)[1]) as conn:
        channel = conn.channel()
        for name in names:
            channel.queue_delete(name)


def _redis():
    import redis
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.exceptions.ConnectionError as exc:
        raise Unavailable('Redis is not reachable at %s: %s' % (REDIS_URL, exc))
    return client


class Deployment:
    def __init__(self, root, state_path, libvirt_uri, prefix, env=None, extra_conf='',
                 hosts=None):
        """``hosts`` (tests.hosts.Hosts, its RabbitMQ relayed): where the workers run,
        one per host in the order they are first started; without, each worker is a
        process of this machine talking to ``libvirt_uri``."""
        self.root = pathlib.Path(root)
        self.hosts = hosts
        self.placement = {}  # worker name -> tests.hosts.Host
        self.tag = secrets.token_hex(4)
        self.db_name = 'provisioner_test_%s' % self.tag
        self.board = 'provisioner-test-%s' % self.tag
        self.dsn = 'postgresql://postgres@127.0.0.1/%s' % self.db_name
        self.env = dict(env or os.environ)
        self.processes = {}
        self.worker_conf = ''  # what every worker's config adds (serve_images)
        self.api_url = None  # provisioner-api's, once serve_images() started it
        # Where the workers reach provisioner-api (and this machine's clients too).
        self.api_address = hosts.management_ip if hosts else '127.0.0.1'
        values = {'state': state_path, 'rabbit': RABBIT_URL, 'board': self.board,
                  'db': database_url(self.db_name), 'redis': REDIS_URL,
                  'prefix': prefix, 'uri': libvirt_uri, 'extra': extra_conf}
        common = (
            '[DEFAULT]\nstate_path = %(state)s\nhost = cli-host\n'
            # A daemon stuck stopping dumps its stacks and exits 1 before the
            # harness's own 60 s limit.
            'graceful_shutdown_timeout = 30\n'
            'transport_url = %(rabbit)s\ncontrol_exchange = %(board)s\n'
            '[engine]\ntopic = %(board)s-engine\n'
            '[worker]\ntopic = %(board)s-worker\nheartbeat_timeout = 5\n'
            'report_interval = 2\n'
            # Reply queues are never auto-deleted; an exited CLI's expires in 5 s.
            '[oslo_messaging_rabbit]\namqp_auto_delete = true\n'
            'rabbit_transient_queues_ttl = 5\n'
            # Its own notification topic: nothing consumes these queues, and
            # destroy() deletes them (a queue that never had a consumer stays).
            '[notifications]\nversioned_notifications_topics = %(board)s-notifications\n'
            '[libvirt]\nconnection_uri = %(uri)s\nresource_prefix = %(prefix)s\n'
            '%(extra)s\n')
        self.config_file = self.root / 'provisioner.conf'
        self.config_file.write_text(
            (common + '[database]\nconnection = %(db)s\n'
             '[jobboard]\nurl = %(redis)s\nname = %(board)s\n') % values)
        # A worker's: no database, no jobboard (a hypervisor host holds no secret
        # of the cloud's, issue 13). Inside a namespace host, the broker is the
        # relay on the hosts' underlay and the hypervisor the host's own libvirtd.
        if hosts:
            values.update(rabbit=_through(RABBIT_URL, hosts.management_ip),
                          uri='qemu:///system')
        self.worker_config_file = self.root / 'worker.conf'
        self.worker_config_file.write_text(common % values)
        self._redis = _redis()
        _pg_admin('CREATE DATABASE %s' % self.db_name)

    # -- daemons ---------------------------------------------------------------------

    def host_state_path(self, host):
        """A worker's state_path: its own, as on a host of its own (the hosts share
        the deployment's [libvirt] resource_prefix, as an operator's would)."""
        return self.root / 'hosts' / host / 'state'

    def log_path(self, host):
        return self.root / ('%s.log' % host)

    def serve_images(self):
        """Start provisioner-api as the image API (IMAGE_API) with its service user:
        workers started afterwards download images from it over HTTP, as on hosts
        that share no files with it."""
        password = secrets.token_hex(12)
        subprocess.run([sys.executable, '-m', 'provisioner.cmd.cli', '--config-file',
                        str(self.config_file), 'bootstrap', '--service-user',
                        SERVICE_USER, '--service-password', password],
                       check=True, capture_output=True, env=self.env, cwd=REPO)
        port = free_port()
        self.start('api', IMAGE_API, extra_conf=api_conf(port, self.api_address))
        self.api_url = 'http://%s:%d' % (self.api_address, port)
        self.worker_conf = ('[image_service]\nauth_url = %s/identity\n'
                            'username = %s\npassword = %s\n'
                            % (self.api_url, SERVICE_USER, password))

    def start(self, kind, host, extra_conf='', wait=True, module=None):
        """Start provisioner-<kind> as host; wait until it says it is ready.

        ``module``: run this module instead of provisioner.cmd.<kind> (a daemon as
        an earlier release ran it).
        """
        conf = self.root / ('%s.conf' % host)
        if kind == 'worker' and self.worker_conf:
            # And an image cache of its own, as on a host of its own.
            extra_conf = '%s[image]\ncache_directory = %s\n%s' % (
                self.worker_conf, self.root / ('%s-image-cache' % host), extra_conf)
        own = ''
        if kind == 'worker':
            self.host_state_path(host).parent.mkdir(mode=0o755, parents=True,
                                                    exist_ok=True)
            own = 'state_path = %s\n' % self.host_state_path(host)
        conf.write_text('[DEFAULT]\nhost = %s\n%s%s' % (host, own, extra_conf))
        command = [sys.executable, '-m', module or 'provisioner.cmd.%s' % kind,
                   '--config-file',
                   str(self.worker_config_file if kind == 'worker' else self.config_file),
                   '--config-file', str(conf)]
        with open(self.log_path(host), 'ab') as log:
            since = log.tell()  # a restarted daemon appends: only its own lines count
            if kind == 'worker' and self.hosts:
                proc = self.place(host).popen(command, stdout=log,
                                              stderr=subprocess.STDOUT, env=self.env,
                                              cwd=REPO)
            else:
                proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                        env=self.env, cwd=REPO)
        self.processes[host] = proc
        if wait:
            self.wait_for_log(host, READY[kind], since)
        return proc

    def place(self, worker):
        """The namespace host a worker runs in (the next free one, the first time)."""
        if worker not in self.placement:
            free = [h for h in self.hosts if h not in self.placement.values()]
            if not free:
                raise AssertionError('no namespace host left for worker %s (%d hosts)'
                                     % (worker, len(self.hosts)))
            self.placement[worker] = free[0]
        return self.placement[worker]

    def wait_for_log(self, host, text, since=0, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.log_path(host), 'rb') as log:
                log.seek(since)
                if text in log.read().decode(errors='replace'):
                    return
            if self.processes[host].poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError('%s never logged %r:\n%s'
                             % (host, text, self.log_path(host).read_text()[-5000:]))

    def stop(self, host, sig=signal.SIGTERM, timeout=60):
        """Signal the daemon and return its exit code; a daemon that does not exit
        in time dumps its threads' stacks (SIGUSR2), is killed, and fails the test."""
        proc = self.processes.pop(host)
        if proc.poll() is None:
            proc.send_signal(sig)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGUSR2)
            time.sleep(1)
            proc.kill()
            proc.wait()
            raise AssertionError('%s did not exit within %d s of %s; its log ends:\n%s'
                                 % (host, timeout, signal.Signals(sig).name,
                                    self.log_path(host).read_text()[-20000:]))

    def _unclean(self, host, code):
        return '%s exited with %s after SIGTERM; its log ends:\n%s' % (
            host, code, self.log_path(host).read_text()[-20000:])

    def stop_cleanly(self, host):
        """SIGTERM the daemon; fail, with its log, unless it exits 0."""
        code = self.stop(host)
        assert code == 0, self._unclean(host, code)

    def retire(self, host):
        """SIGTERM a daemon the test no longer needs, whose stop is not what it checks.

        An unclean exit (past graceful_shutdown_timeout it dumps its stacks and exits
        1) is reported as a warning with its log, in the run's summary.
        """
        code = self.stop(host)
        if code != 0:
            warnings.warn(self._unclean(host, code), stacklevel=2)

    def wait_exit(self, host, timeout=120):
        return self.processes.pop(host).wait(timeout=timeout)

    def stop_all(self):
        for host in list(self.processes):
            try:
                self.stop(host, timeout=30)
            except AssertionError as exc:  # already killed; keep tearing down
                print(exc, file=sys.stderr)

    # -- state -----------------------------------------------------------------------

    def query(self, sql, params=()):
        """Rows of a query on the deployment's database (qmark parameters)."""
        import psycopg2
        conn = psycopg2.connect(self.dsn)
        try:
            with conn.cursor() as cursor:
                cursor.execute(sql.replace('?', '%s'), params)
                return cursor.fetchall()
        finally:
            conn.close()

    def destroy(self, keep_logs_in=None):
        self.stop_all()
        if keep_logs_in:  # the daemons' logs, for a failure seen in CI
            for log in self.root.glob('*.log'):
                shutil.copy(log, pathlib.Path(keep_logs_in) / ('%s-%s' % (self.tag,
                                                                          log.name)))
        for key in self._redis.scan_iter(match='%s*' % self.board):
            self._redis.delete(key)
        _pg_admin('DROP DATABASE IF EXISTS %s WITH (FORCE)' % self.db_name)
        _delete_queues('%s-notifications.%s' % (self.board, priority)
                       for priority in _NOTIFICATION_PRIORITIES)
