"""Where the database is and which schema revision the code expects, without SQLAlchemy.

The CLI's quick reads (provisioner.cmd.quick_list) use these with the standard
library's sqlite3: importing SQLAlchemy alone costs more than their whole budget.
"""

import os

from provisioner.conf import CONF

# The newest revision in migrations/versions; a unit test keeps the two in step.
SCHEMA_HEAD = '0035'
# Where alembic records provisioner's revision (TaskFlow's tables have their own).
VERSION_TABLE = 'provisioner_alembic_version'


def database_url():
    if CONF.database.connection:
        return CONF.database.connection
    return 'sqlite:///' + os.path.join(CONF.state_path, 'provisioner.sqlite')


def is_sqlite(url=None):
    return (url or database_url()).startswith('sqlite')
