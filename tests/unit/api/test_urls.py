"""The links every view carries: computed once per request, quoted as urllib does."""

import urllib.parse

import webob

from provisioner.api import urls


def _request(script_name='/compute'):
    req = webob.Request.blank('/v2.1/servers/detail', base_url='http://api.example:8774')
    req.script_name = script_name
    return req


def _reference(req, version_prefix, *parts):
    """The links as they were built before the per-request cache: urllib for all."""
    def quoted(items):
        return [urllib.parse.quote(str(p), safe='') for p in items]
    base = req.host_url + req.script_name
    return [{'rel': 'self',
             'href': '/'.join([base.rstrip('/')] + quoted((version_prefix,) + parts))},
            {'rel': 'bookmark', 'href': '/'.join([base] + quoted(parts))}]


def test_links_quote_every_part_as_urllib(conf):
    req = _request()
    for resource_id in ('a2c6f0e4-9d8e-4c6b-8f0e-3a1f6d0c9b7e', 'm1.tiny_2~x-y', 42,
                        'a b/c?d=é', '%2F', ''):
        assert urls.links(req, 'v2.1', 'flavors', resource_id) == _reference(
            req, 'v2.1', 'flavors', resource_id)
        assert urls.bookmark(req, 'flavors', resource_id) == _reference(
            req, 'v2.1', 'flavors', resource_id)[1:]


def test_the_base_follows_the_script_name_and_public_url(conf):
    req = _request('/compute')
    assert urls.links(req, 'v2.1', 'servers', 'x')[1]['href'] == \
        'http://api.example:8774/compute/servers/x'
    req.script_name = '/compute/extra'  # mounted deeper: not the cached base
    assert urls.service_url(req, 'servers') == \
        'http://api.example:8774/compute/extra/servers'
    conf.set_override('public_url', 'https://cloud.example/', 'api')
    assert urls.links(_request(), 'v2.1', 'servers', 'x')[0]['href'] == \
        'https://cloud.example/compute/v2.1/servers/x'
