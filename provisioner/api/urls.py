"""The URLs the services answer with: the public base, a resource's links, a next page.

Clients follow these (the catalog, version documents, ``self`` links, pagination),
so every one is absolute and externally reachable: ``[api] public_url``, else the
request's own host. Below every service: the app that mounts them is not needed.
"""

import re
import urllib.parse

from provisioner.conf import CONF

# What urllib.parse.quote(..., safe='') leaves as it is: such a part (an id) is
# its own quoted form.
_UNRESERVED = re.compile(r'[A-Za-z0-9_.~-]*')
_BASE_KEY = 'provisioner.api.url_base'


def public_base_url(req):
    """The externally reachable base URL: [api] public_url, else the request's own."""
    return (CONF.api.public_url or req.host_url).rstrip('/')


def _service_base(req):
    """public_base_url + the service's script name, worked out once per request
    and script name (a list of a thousand servers asks for two thousand links)."""
    script_name = req.environ.get('SCRIPT_NAME', '')  # as is: the key alone
    cached = req.environ.get(_BASE_KEY)
    if cached is None or cached[0] != script_name:
        cached = (script_name, public_base_url(req) + req.script_name)
        req.environ[_BASE_KEY] = cached
    return cached[1]


def _quote(part):
    part = str(part)
    if _UNRESERVED.fullmatch(part):
        return part
    return urllib.parse.quote(part, safe='')


def _quoted(parts):
    return [_quote(p) for p in parts]


def service_url(req, *parts):
    """Absolute URL under this request's service (e.g. .../compute/v2.1/servers/x)."""
    return '/'.join([_service_base(req).rstrip('/')] + _quoted(parts))


def links(req, version_prefix, *parts):
    """Nova's self (versioned) and bookmark (unversioned) links of one resource."""
    base = _service_base(req)
    quoted = _quoted(parts)
    return [{'rel': 'self',
             'href': '/'.join([base.rstrip('/'), _quote(version_prefix)] + quoted)},
            {'rel': 'bookmark', 'href': '/'.join([base] + quoted)}]


def bookmark(req, *parts):
    """Nova's bookmark link alone (a server's image and flavor)."""
    return [{'rel': 'bookmark', 'href': '/'.join([_service_base(req)] + _quoted(parts))}]


def next_link(req, path_parts, last_id):
    """A rel=next link to the page after ``last_id``, keeping the query's filters."""
    query = [(k, v) for k, v in req.GET.items() if k != 'marker']
    query.append(('marker', last_id))
    return [{'rel': 'next', 'href': '%s?%s' % (service_url(req, *path_parts),
                                               urllib.parse.urlencode(query))}]
