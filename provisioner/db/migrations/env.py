"""Alembic environment: runs provisioner's own migrations on the connection given."""

from alembic import context

from provisioner.db import models

VERSION_TABLE = 'provisioner_alembic_version'  # TaskFlow's migrations own alembic_version


def run_migrations_online():
    connection = context.config.attributes['connection']
    context.configure(connection=connection,
                      target_metadata=models.Base.metadata,
                      version_table=VERSION_TABLE,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
