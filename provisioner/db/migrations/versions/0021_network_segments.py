"""Network segments and the hosts' underlay addresses

``network_type`` and ``segmentation_id`` are the network's segment (Neutron's
provider:network_type and provider:segmentation_id: 'vxlan' and its VNI), unique per
type; null on a network made before segments, which gets one when a port first binds.
``dhcp_host`` is the host whose DHCP server serves the network across hosts (null
until a port binds, and again once its last port is gone). ``hosts.underlay_ip`` is
the host's VXLAN tunnel address, as its worker reports it (null: no L2 agent there).

Revision ID: 0021
Revises: 0020
"""

from alembic import op
import sqlalchemy as sa


revision = '0021'
down_revision = '0020'


def upgrade():
    with op.batch_alter_table("networks") as batch:
        batch.add_column(sa.Column("network_type", sa.String(length=16)))
        batch.add_column(sa.Column("segmentation_id", sa.Integer()))
        batch.add_column(sa.Column("dhcp_host", sa.String(length=255)))
        batch.create_unique_constraint("uq_networks_segment",
                                       ["network_type", "segmentation_id"])
    with op.batch_alter_table("hosts") as batch:
        batch.add_column(sa.Column("underlay_ip", sa.String(length=39)))


def downgrade():
    with op.batch_alter_table("hosts") as batch:
        batch.drop_column("underlay_ip")
    with op.batch_alter_table("networks") as batch:
        batch.drop_constraint("uq_networks_segment", type_="unique")
        batch.drop_column("dhcp_host")
        batch.drop_column("segmentation_id")
        batch.drop_column("network_type")
