"""Identity v3 (a Keystone subset): tokens, the catalog, projects, users and roles.

Importing the package registers every route on ``SERVICE``.
"""

from provisioner.api.identity import core
from provisioner.api.identity import resources  # noqa: F401 (registers routes)
from provisioner.api.identity import tokens  # noqa: F401 (registers routes)

SERVICE = core.SERVICE
