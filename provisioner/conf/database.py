"""[database] options: the SQL database holding provisioner's rows and flow state."""

from oslo_config import cfg

database_opts = [
    cfg.StrOpt('connection',
               secret=True,
               help='SQLAlchemy URL of the database holding instances, catalog, '
                    'identity and TaskFlow flow state. Unset means the all-in-one '
                    'SQLite file $state_path/provisioner.sqlite. Production: '
                    'postgresql+psycopg2://user:pass@host/provisioner. '
                    'Run "provisioner db-sync" once after changing it.'),
    cfg.IntOpt('sqlite_busy_timeout',
               default=30,
               min=1,
               help='Seconds a SQLite writer waits for another writer before '
                    'giving up. Only used with SQLite.'),
]


def register_opts(conf):
    conf.register_opts(database_opts, group='database')


def list_opts():
    return {'database': database_opts}
