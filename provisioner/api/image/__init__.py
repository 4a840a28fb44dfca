"""Image v2 (a Glance subset), shaped as every service: controllers (versions,
images, members, metadefs), ``schemas`` (the request bodies) and ``views``
(Glance's shapes)."""

from provisioner.api.image import images
from provisioner.api.image import members
from provisioner.api.image import metadef_schemas
from provisioner.api.image import metadefs
from provisioner.api.image import versions
from provisioner.api.image import views
from provisioner.api import wsgi

SERVICE = wsgi.Service('image', fault=views.glance_fault,
                       controllers=(versions, images, members, metadefs,
                                    metadef_schemas))
