"""provisioner-worker: run this hypervisor host's steps for the engines.

One per host, named by ``[DEFAULT] host``; it needs libvirtd and RabbitMQ, and no
database: its config has no ``[database]`` section and it imports nothing of
``provisioner.db``, which it refuses from the start (``provisioner.worker.no_database``).
SIGTERM lets the steps it is running finish, then exits.
"""

import logging
import sys

from provisioner.cmd import daemon

LOG = logging.getLogger('provisioner.worker')


def main(argv=None):
    daemon.setup(sys.argv[1:] if argv is None else argv, 'provisioner-worker')
    from provisioner.conf import CONF
    from provisioner.worker import no_database
    no_database.forbid(CONF)
    from provisioner import rpc
    from provisioner import virt
    from provisioner.worker import service

    daemon.wait_for('RabbitMQ (transport_url)', daemon.check_broker)
    daemon.wait_for('libvirtd', lambda: virt.get_driver().capacity())
    worker = service.WorkerService()
    worker.start()
    try:
        daemon.serve(worker.wait, worker.stop, 'provisioner-reports')
    finally:
        rpc.cleanup()
    LOG.info('Worker of host %s stopped', worker.host)
    return 0


if __name__ == '__main__':
    sys.exit(main())
