"""The dashboard's page and its assets, served from the package (no CDN, no build).

``GET /dashboard/`` is the one HTML page; everything else the browser loads is
``GET /dashboard/static/<name>``, a file of this package's ``static`` directory
asked for by its exact name (no sub-directories, no ``..``: a name is looked up
in the directory's listing, never joined into a path the client chose). Both are
public: the page holds no data, it asks the REST API for everything with the
session cookie. Every response carries a Content-Security-Policy that allows
scripts, styles and connections to this origin only, with no inline script or
style, so text that reaches the page (a server's name, a guest's console) can
never run as code even if it were ever put in as markup.
"""

import hashlib
import html
import os
import re

import webob

from provisioner.api import wsgi

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'static')

CONTENT_TYPES = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.svg': 'image/svg+xml',
    '.png': 'image/png',
    '.ico': 'image/x-icon',
}

# What a served name may look like: one plain file name with a known extension.
_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.(html|js|css|svg|png|'
                   r'ico)$')

SECURITY_HEADERS = {
    'Content-Security-Policy': (
        "default-src 'self'; script-src 'self'; style-src 'self'; "
        "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
        "base-uri 'none'; form-action 'self'"),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
}

# Assets are revalidated on each load (ETag): an upgraded package is seen at once.
CACHE_CONTROL = 'no-cache'

# index.html's placeholder for the path the dashboard is mounted at.
ROOT_PLACEHOLDER = '{{root}}'


def _read(name):
    with open(os.path.join(STATIC_DIR, name), 'rb') as asset:
        return asset.read()


def _response(body, content_type, req):
    response = webob.Response(body=body, content_type=content_type)
    if content_type.startswith('text/') or content_type == 'image/svg+xml':
        response.charset = 'utf-8'
    response.headers['Cache-Control'] = CACHE_CONTROL
    for header, value in SECURITY_HEADERS.items():
        response.headers[header] = value
    response.etag = hashlib.sha256(body).hexdigest()[:32]
    response.conditional_response = True  # 304 to a matching If-None-Match
    return response


@wsgi.route('GET', '/', public=True)
def index(req):
    """The page; its asset URLs point under the path the dashboard is mounted at."""
    root = req.script_name.rstrip('/')  # e.g. /dashboard, or /cloud/dashboard
    page = _read('index.html').decode('utf-8')
    page = page.replace(ROOT_PLACEHOLDER, html.escape(root, quote=True))
    return _response(page.encode('utf-8'), 'text/html', req)


@wsgi.route('GET', '/static/{name}', public=True)
def static(req, name):
    """One file of the static directory, by its exact name."""
    if not _NAME.match(name) or name not in os.listdir(STATIC_DIR) \
            or not os.path.isfile(os.path.join(STATIC_DIR, name)):
        raise wsgi.HTTPError(404, 'The dashboard has no file named %r.' % name[:100])
    content_type = CONTENT_TYPES[os.path.splitext(name)[1]]
    return _response(_read(name), content_type, req)
