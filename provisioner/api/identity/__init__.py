"""Identity v3 (a Keystone subset): tokens, the catalog, projects, users, roles and
application credentials.

Shaped as every service: controllers (versions, tokens, resources,
app_credentials), ``schemas`` (the request bodies) and ``views`` (Keystone's shapes
and error body).
"""

from provisioner.api.identity import app_credentials
from provisioner.api.identity import resources
from provisioner.api.identity import tokens
from provisioner.api.identity import versions
from provisioner.api.identity import views
from provisioner.api import wsgi

SERVICE = wsgi.Service('identity', fault=views.keystone_fault,
                       controllers=(versions, tokens, resources, app_credentials))
