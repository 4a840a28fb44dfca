"""provisioner-engine: a conductor running the flows provisioner-api posts.

Run any number of them against the same database, RabbitMQ and Redis: they share the
jobboard (each flow is claimed by one) and the topic the workers report to, and a
killed engine's flows are taken over by the others within ``[engine] claim_ttl``
seconds.
"""

import logging
import sys

from provisioner.cmd import daemon

LOG = logging.getLogger('provisioner.engine')


def main(argv=None):
    daemon.setup(sys.argv[1:] if argv is None else argv, 'provisioner-engine')
    from provisioner.conf import CONF
    from provisioner.db import api as db_api
    from provisioner.engine import conductor
    from provisioner.engine import jobs
    from provisioner.engine import reports
    from provisioner import fault_injection
    from provisioner.maintenance import audit as maintenance_audit
    from provisioner import rpc

    # Nothing of a stalled engine (its row locks) may outlive its claims.
    db_api.limit_idle_transactions(CONF.engine.claim_ttl)
    daemon.wait_for('The database', daemon.check_database)
    daemon.wait_for('RabbitMQ (transport_url)', daemon.check_broker)
    board = daemon.wait_for('The jobboard at redis://%s' % jobs.redis_location(),
                            jobs.get_board)
    worker = conductor.Conductor(board, on_lease_taken=(
        fault_injection.stop_taking_lease if CONF.fault_injection.stop_taking_lease else None))
    server = rpc.get_server(CONF.engine.topic, worker.name,
                            [reports.WorkerReportsEndpoint(),
                             maintenance_audit.EngineMaintenanceEndpoint()])
    server.start()
    LOG.info('Engine %s ready: reports on topic %s, jobs from board %s', worker.name,
             CONF.engine.topic, CONF.jobboard.name)
    try:
        daemon.serve(worker.run, worker.stop, 'provisioner-conductor')
    finally:
        server.stop()
        server.wait()
        jobs.reset()
        rpc.cleanup()
    LOG.info('Engine %s stopped', worker.name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
