"""Port security and allowed address pairs on ports

``port_security_enabled`` (Neutron's port-security extension; true by default, also
for the ports made before it): the port's host filters what it sends to its MAC and
fixed IPs, and applies its security groups. ``allowed_address_pairs`` (Neutron's
allowed-address-pairs extension): further [{'ip_address', 'mac_address'}] the port
may send from.

Revision ID: 0028
Revises: 0033
"""

from alembic import op
import sqlalchemy as sa


revision = '0028'
down_revision = '0033'


def upgrade():
    with op.batch_alter_table("ports") as batch:
        batch.add_column(sa.Column("port_security_enabled", sa.Boolean(),
                                   nullable=False, server_default=sa.true()))
        batch.add_column(sa.Column("allowed_address_pairs", sa.JSON()))


def downgrade():
    with op.batch_alter_table("ports") as batch:
        batch.drop_column("allowed_address_pairs")
        batch.drop_column("port_security_enabled")
