"""[engine], [worker], [jobboard] and [upgrade_levels] options: the distributed deployment.

All-in-one needs none of them. With ``[DEFAULT] transport_url`` set, provisioner-api
posts each request's flow on the jobboard, provisioner-engine daemons run them, and
each host's provisioner-worker executes that host's steps.
"""

from oslo_config import cfg

engine_opts = [
    cfg.StrOpt('topic',
               default='provisioner-engine',
               help='RPC topic the engines listen on: workers report their hosts '
                    'there, and audits ask an engine to compare a host with the '
                    'database.'),
    cfg.FloatOpt('claim_ttl',
                 default=3.0,
                 min=1.0,
                 help='Seconds a boot stays claimed by an engine that stopped '
                      'heartbeating (killed, frozen, cut off). After that another '
                      'engine takes the boot over from its last persisted step. '
                      'Lower means faster takeover, higher tolerates longer stalls.'),
    cfg.FloatOpt('heartbeat_interval',
                 default=0.75,
                 min=0.05,
                 help='Seconds between two renewals of a running boot\'s claim and '
                      'lease. Keep it well under claim_ttl.'),
    cfg.FloatOpt('poll_interval',
                 default=0.25,
                 min=0.01,
                 help='Seconds between two looks at the jobboard for unclaimed jobs '
                      '(new boots, and boots whose engine stopped heartbeating).'),
    cfg.IntOpt('max_concurrent_flows',
               default=16,
               min=1,
               help='Flows (boots, rollbacks, deletes) one engine runs at once.'),
    cfg.IntOpt('api_timeout',
               default=60,
               min=1,
               help='Seconds a maintenance call (an audit, a teardown, console '
                    'output) waits for the engine or worker it asks.'),
]

worker_opts = [
    cfg.StrOpt('topic',
               default='provisioner-worker',
               help='RPC topic of the workers; each listens with server=<its host>.'),
    cfg.IntOpt('task_timeout',
               default=900,
               min=1,
               help='Longest a host-side step (an image copy, say) may run on a '
                    'worker before the engine gives up on it.'),
    cfg.IntOpt('heartbeat_timeout',
               default=10,
               min=2,
               help='A worker executing a step reports that it is alive; when it '
                    'has not for this many seconds (it died, or never got the '
                    'step), the step fails. Bounds how long a dead worker can '
                    'hold a boot (times step_attempts).'),
    cfg.IntOpt('step_attempts',
               default=2,
               min=1,
               help='Times the engine sends a host-side step before giving up on '
                    'an unanswered call. Steps are idempotent, so sending again is '
                    'safe, and it rides out a broker restart that lost the message '
                    'or its reply.'),
    cfg.IntOpt('report_interval',
               default=10,
               min=1,
               help='Seconds between two reports of this host\'s capacity, usage '
                    'and liveness. Keep it well under [scheduler] host_down_time, '
                    'after which a silent host is not scheduled onto.'),
    cfg.IntOpt('reconcile_interval',
               default=600,
               min=0,
               help='Seconds between two audits of this host by its worker: it sends '
                    'what this deployment holds here (domains, DHCP entries, pool '
                    'volumes, config drives, instance directories) to an engine, '
                    'which compares it with the database and answers with the '
                    'orphans and missing resources; the worker logs each. 0 turns '
                    'the periodic audit off ("provisioner audit" still works). '
                    'Related options: reap_orphans, orphan_grace_period.'),
    cfg.BoolOpt('reap_orphans',
                default=False,
                help='Whether the periodic audit removes the orphans it finds (older '
                     'than orphan_grace_period), as "provisioner audit --fix" does. '
                     'Off by default: the audit only logs them. Leftovers that a '
                     'failed cleanup recorded are removed either way. Related '
                     'options: reconcile_interval, orphan_grace_period.'),
    cfg.IntOpt('orphan_grace_period',
               default=600,
               min=0,
               help='Seconds an orphan must exist before an audit removes it. A '
                    'boot may have made a volume or domain that the database does '
                    'not list yet; keep this above the longest boot step '
                    '([worker] task_timeout is a safe bound). Related options: '
                    'reap_orphans.'),
]

upgrade_levels_opts = [
    cfg.StrOpt('maintenance',
               help='Highest version of the maintenance RPC API (audits, orphans, '
                    'host teardown) this process sends, during a rolling upgrade '
                    'while some workers or engines are older. Unset: the newest. '
                    'Possible values: a version such as "1.0".'),
    # Nova's [upgrade_levels]: pin what new services send to the versions the
    # old ones understand.
    cfg.StrOpt('worker',
               help='Newest worker RPC API version the engines send (e.g. 2.0 while '
                    'some workers still run the previous release). Unset: newest.'),
    cfg.StrOpt('engine',
               help='Newest engine RPC API version the workers send. Unset: newest.'),
]

jobboard_opts = [
    cfg.StrOpt('url',
               default='redis://127.0.0.1:6379/0',
               secret=True,
               help='Redis holding the jobboard: redis://[:password@]host:port/db. '
                    'Secret because it may carry a password.'),
    cfg.StrOpt('name',
               default='provisioner',
               help='Name of the jobboard (its Redis key namespace); engines sharing '
                    'work use the same one.'),
]


def register_opts(conf):
    conf.register_opts(engine_opts, group='engine')
    conf.register_opts(worker_opts, group='worker')
    conf.register_opts(jobboard_opts, group='jobboard')
    conf.register_opts(upgrade_levels_opts, group='upgrade_levels')


def list_opts():
    return {'engine': engine_opts, 'worker': worker_opts, 'jobboard': jobboard_opts,
            'upgrade_levels': upgrade_levels_opts}
