"""The metadata service (Nova's nova-api-metadata), under /metadata: what a guest
reads about itself at http://169.254.169.254/, reached only through the metadata
proxy of its network, which signs whom each request is for (provisioner.
metadata_signing). Every path is the guest's own (its tree, provisioner.api.
metadata.tree); errors are plain text, as Nova's metadata service answers."""

from provisioner.api.metadata import handler

SERVICE = handler.MetadataService()
