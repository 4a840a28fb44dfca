"""SQLAlchemy models: identity, catalog, hosts and the instances built on them, one
module per service; every model is reachable here (``models.Instance``).

TaskFlow's persistence tables (logbooks, flowdetails, atomdetails) live in the same
database but belong to TaskFlow; they are created by its own migrations in db-sync.
"""

# ruff: noqa: F401, F403
from provisioner.db.models.base import *
from provisioner.db.models.catalog import *
from provisioner.db.models.compute import *
from provisioner.db.models.identity import *
from provisioner.db.models.network import *
from provisioner.db.models.volume import *
