"""The dashboard's service: its pages and assets, and the browser session.

The pages are static (they ship in the package: no CDN) and read and change
everything through the REST API that provisioner-api serves, with the session
cookie standing in for the X-Auth-Token header (provisioner.api.session).
"""

import importlib

from provisioner.api import wsgi


def dashboard_fault(status, message):
    """Keystone's error shape: the dashboard's own endpoints are about sessions."""
    return {'error': {'code': status, 'title': wsgi.TITLES.get(status, 'Error'),
                      'message': message}}


SERVICE = wsgi.Service('dashboard', fault=dashboard_fault)

# Each module registers its routes on SERVICE when imported.
MODULES = ('session', 'pages')
for _module in MODULES:
    importlib.import_module('provisioner.dashboard.' + _module)
