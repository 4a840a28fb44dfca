"""Identity v3 (Keystone's): tokens, the catalog, domains, projects, users, groups,
roles and their assignments, regions, services and endpoints, credentials, stored
policies, application credentials, and the extensions endpoint groups, OAuth 1
consumers, EC2 credentials and domain configuration.

Shaped as every service: controllers (versions, tokens, resources, domains, roles,
catalog, credentials, extensions, app_credentials), ``schemas`` (the request bodies) and
``views`` (Keystone's shapes and error body).
"""

from provisioner.api.identity import app_credentials
from provisioner.api.identity import catalog
from provisioner.api.identity import credentials
from provisioner.api.identity import domains
from provisioner.api.identity import extensions
from provisioner.api.identity import resources
from provisioner.api.identity import roles
from provisioner.api.identity import tokens
from provisioner.api.identity import versions
from provisioner.api.identity import views
from provisioner.api import wsgi

SERVICE = wsgi.Service('identity', fault=views.keystone_fault,
                       controllers=(versions, tokens, resources, domains, roles,
                                    catalog, credentials, extensions,
                                    app_credentials))
