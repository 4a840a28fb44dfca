"""Block storage v3 (a Cinder subset, microversion 3.0), shaped as every service:
controllers (versions, volumes, snapshots, volume_actions, volume_metadata, quotas,
extensions, types and type_specs, snapshot_actions, backends, transfers, qos),
``schemas`` (the request bodies), ``filters`` (list queries) and ``views``
(Cinder's shapes; its error body is Nova's)."""

from provisioner.api.volume import backends
from provisioner.api.volume import extensions
from provisioner.api.volume import qos
from provisioner.api.volume import quotas
from provisioner.api.volume import snapshot_actions
from provisioner.api.volume import snapshots
from provisioner.api.volume import transfers
from provisioner.api.volume import type_specs
from provisioner.api.volume import types
from provisioner.api.volume import versions
from provisioner.api.volume import volume_actions
from provisioner.api.volume import volume_metadata
from provisioner.api.volume import volumes
from provisioner.api import wsgi

SERVICE = wsgi.Service('volume', microversions=versions.MICROVERSIONS,
                       controllers=(versions, volumes, snapshots, volume_actions,
                                    volume_metadata, quotas, extensions, types,
                                    type_specs, snapshot_actions, backends, transfers,
                                    qos),
                       trailing_slash=False)
