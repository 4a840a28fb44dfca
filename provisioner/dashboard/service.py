"""The dashboard's service: its pages and assets, and the browser session.

The pages are static (they ship in the package: no CDN) and read and change
everything through the REST API that provisioner-api serves, with the session
cookie standing in for the X-Auth-Token header (provisioner.api.session).
"""

from provisioner.api import wsgi
from provisioner.dashboard import pages
from provisioner.dashboard import session


def dashboard_fault(status, message, exc=None):
    """Keystone's error shape: the dashboard's own endpoints are about sessions."""
    return {'error': {'code': status, 'title': wsgi.TITLES.get(status, 'Error'),
                      'message': message}}


SERVICE = wsgi.Service('dashboard', fault=dashboard_fault, controllers=(session, pages))
