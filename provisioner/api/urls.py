"""The URLs the services answer with: the public base, a resource's links, a next page.

Clients follow these (the catalog, version documents, ``self`` links, pagination),
so every one is absolute and externally reachable: ``[api] public_url``, else the
request's own host. Below every service: the app that mounts them is not needed.
"""

import urllib.parse

from provisioner.conf import CONF


def public_base_url(req):
    """The externally reachable base URL: [api] public_url, else the request's own."""
    return (CONF.api.public_url or req.host_url).rstrip('/')


def _quoted(parts):
    return [urllib.parse.quote(str(p), safe='') for p in parts]


def service_url(req, *parts):
    """Absolute URL under this request's service (e.g. .../compute/v2.1/servers/x)."""
    base = public_base_url(req) + req.script_name
    return '/'.join([base.rstrip('/')] + _quoted(parts))


def links(req, version_prefix, *parts):
    """Nova's self (versioned) and bookmark (unversioned) links of one resource."""
    bookmark = '/'.join([public_base_url(req) + req.script_name] + _quoted(parts))
    return [{'rel': 'self', 'href': service_url(req, version_prefix, *parts)},
            {'rel': 'bookmark', 'href': bookmark}]


def next_link(req, path_parts, last_id):
    """A rel=next link to the page after ``last_id``, keeping the query's filters."""
    query = [(k, v) for k, v in req.GET.items() if k != 'marker']
    query.append(('marker', last_id))
    return [{'rel': 'next', 'href': '%s?%s' % (service_url(req, *path_parts),
                                               urllib.parse.urlencode(query))}]
