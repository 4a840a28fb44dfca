"""provisioner-api: the OpenStack-compatible REST API, on one port.

All-in-one (no ``transport_url``): a complete one-machine cloud. SQLite under
``state_path``, flows in this process's threads, libvirt ``qemu:///system``; boots
and actions a killed predecessor left unfinished resume at start-up.

Distributed: it records each request in the database and posts its flow to the
jobboard for the engines; run as many as you like behind a load balancer.

The server is cheroot, CherryPy's threaded WSGI server: production-grade and pure
Python (no eventlet, no C build), a fixed pool of threads that matches the rest of
provisioner's threading model, HTTP/1.1 keep-alive, and request bodies streamed
to the application (image uploads never sit in memory whole).
"""

import gc
import logging
import sys

from provisioner.cmd import daemon

LOG = logging.getLogger('provisioner.api')
LOG_FORMAT = ('%(asctime)s %(process)d %(levelname)s %(name)s [%(request_id)s]: '
              '%(message)s')


def _logging():
    from provisioner.api import app
    from provisioner import redact
    for handler in logging.getLogger().handlers:
        handler.addFilter(app.RequestIdFilter())
        handler.addFilter(redact.RedactingFilter())


def _deployment():
    """This process's deployment, with what it waits for before serving."""
    from provisioner.engine import deployments
    built = deployments.build(dispatching=True)
    if built.distributed:
        from provisioner.engine import jobs
        daemon.wait_for('The database', daemon.check_database)
        daemon.wait_for('The jobboard at redis://%s' % jobs.redis_location(),
                        jobs.get_board)
        return built
    from provisioner.db import migration
    migration.ensure_schema()
    # Fail now, with the reason, rather than at the first boot.
    built.hypervisor.check_state_path()
    return built


# A list of a thousand servers makes some hundred thousand short-lived objects; at
# Python's default thresholds they set off full collections, each walking every
# object start-up made (modules, SQLAlchemy's mappers, the application), 100 ms and
# more on a loaded machine. Those objects live as long as the process: frozen out
# of the collector, and with a larger first generation, collections stay few and
# short.
GC_THRESHOLD = (20000, 10, 10)


def freeze_start_up():
    """Leave what start-up made out of garbage collections from now on."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def main(argv=None):
    daemon.setup(sys.argv[1:] if argv is None else argv, 'provisioner-api',
                 distributed_only=False, log_format=LOG_FORMAT)
    _logging()
    from cheroot import wsgi as cheroot_wsgi

    from provisioner.api import app
    from provisioner.conf import CONF
    from provisioner.dashboard import service as dashboard

    deployment = _deployment()
    server = cheroot_wsgi.Server((CONF.api.bind_host, CONF.api.bind_port),
                                 app.build_app(deployment,
                                               {'/dashboard': dashboard.SERVICE}),
                                 numthreads=CONF.api.threads,
                                 server_name='provisioner-api')
    server.prepare()  # binds now: a taken port is an error before "ready"
    freeze_start_up()
    LOG.info('provisioner-api (%s) ready: listening on http://%s:%d', deployment.mode,
             CONF.api.bind_host, server.bind_addr[1])
    if not deployment.distributed:
        deployment.dispatcher.resume_interrupted()
    try:
        daemon.serve(server.serve, server.stop, 'provisioner-api-server')
    finally:
        deployment.dispatcher.stop()
        from provisioner import notifications
        notifications.reset()
    LOG.info('provisioner-api stopped')
    return 0


if __name__ == '__main__':
    sys.exit(main())
