"""The dashboard's page and assets over plain HTTP: types, caching, security
headers, and nothing served but the static directory's own files by exact name."""

import http.client
import pathlib
import urllib.parse

import pytest

from provisioner.dashboard import pages

STATIC = pathlib.Path(pages.STATIC_DIR)

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def get(cloud, path, **kwargs):
    return cloud.http.request('GET', path, token=False, **kwargs)


def _secure(response):
    assert response.headers['Content-Security-Policy'] == CSP
    assert response.headers['X-Content-Type-Options'] == 'nosniff'
    assert response.headers['Referrer-Policy'] == 'no-referrer'
    assert response.headers['Cache-Control'] == 'no-cache'


def test_page_and_assets(api_cloud):
    page = get(api_cloud, '/dashboard/')
    assert page.status_code == 200
    assert page.headers['Content-Type'].startswith('text/html')
    _secure(page)
    assert '<meta name="provisioner-root" content="/dashboard">' in page.text
    assert 'src="/dashboard/static/app.js"' in page.text
    assert 'style=' not in page.text and ' on' + 'click' not in page.text
    assert get(api_cloud, '/dashboard').status_code == 200

    for name, kind in (('app.js', 'text/javascript'), ('api.js', 'text/javascript'),
                       ('graph.js', 'text/javascript'), ('app.css', 'text/css'),
                       ('favicon.svg', 'image/svg+xml')):
        asset = get(api_cloud, '/dashboard/static/' + name)
        assert asset.status_code == 200, name
        assert asset.headers['Content-Type'].split(';')[0] == kind
        _secure(asset)
        again = get(api_cloud, '/dashboard/static/' + name,
                    headers={'If-None-Match': asset.headers['ETag']})
        assert again.status_code == 304, name


@pytest.mark.parametrize('path', [
    '/dashboard/static/../pages.py', '/dashboard/static/..%2Fpages.py',
    '/dashboard/static/%2e%2e%2fservice.py', '/dashboard/static/pages.py',
    '/dashboard/static/..', '/dashboard/static/.', '/dashboard/static/APP.JS',
    '/dashboard/static/app.js%00.css',
    '/dashboard/static//etc/passwd', '/dashboard/static/%2Fetc%2Fpasswd',
    '/dashboard/static/nothing.js', '/dashboard/static/index.html.bak',
    '/dashboard/__init__.py',
])
def test_nothing_else_is_served(api_cloud, path):
    # http.client sends the path as it is (requests would resolve the dots first).
    url = urllib.parse.urlsplit(api_cloud.url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        connection.request('GET', path)
        response = connection.getresponse()
        body = response.read().decode(errors='replace')
    finally:
        connection.close()
    assert response.status in (400, 404), (path, response.status)
    assert 'import' not in body and 'root:' not in body


def test_no_markup_from_strings_in_the_scripts(api_cloud):
    """The scripts never turn a string into markup (the CSP is the second line)."""
    names = sorted(p.name for p in STATIC.iterdir() if p.suffix == '.js')
    assert {'app.js', 'instance.js', 'networks.js', 'volumes.js'} <= set(names), names
    for name in names:
        source = get(api_cloud, '/dashboard/static/' + name).text
        for sink in ('innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write',
                     'eval(', 'new Function', 'setAttribute(\'style', '.style.'):
            assert sink not in source, (name, sink)
