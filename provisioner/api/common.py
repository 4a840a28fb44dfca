"""What the services' handlers share: times, links, pagination, bodies."""

import datetime
import urllib.parse

import jsonschema

from provisioner.api import app
from provisioner.api import wsgi
from provisioner.conf import CONF


def _utc(moment):
    if isinstance(moment, str):
        moment = datetime.datetime.fromisoformat(moment)
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment


def isotime(moment):
    """Nova's timestamps: 2026-11-23T14:42:38Z (None stays None)."""
    return None if moment is None else _utc(moment).strftime('%Y-%m-%dT%H:%M:%SZ')


def isotime_us(moment):
    """Keystone's and Nova's event timestamps: 2026-11-23T14:42:38.469947Z."""
    return None if moment is None else _utc(moment).strftime('%Y-%m-%dT%H:%M:%S.%fZ')


def service_url(req, *parts):
    """Absolute URL under this request's service (e.g. .../compute/v2.1/servers/x)."""
    base = app.public_base_url(req) + req.script_name
    return '/'.join([base.rstrip('/')] + [urllib.parse.quote(str(p), safe='')
                                          for p in parts])


def links(req, version_prefix, *parts):
    """Nova's self (versioned) and bookmark (unversioned) links of one resource."""
    bookmark = '/'.join([app.public_base_url(req) + req.script_name]
                        + [urllib.parse.quote(str(p), safe='') for p in parts])
    return [{'rel': 'self', 'href': service_url(req, version_prefix, *parts)},
            {'rel': 'bookmark', 'href': bookmark}]


def page(req, items, key='id'):
    """The page of ``items`` (in order) that ``limit`` and ``marker`` ask for.

    Returns (items, more): ``more`` is true when items remain after the page. A
    marker that is not in the list is 400, as in Nova ("marker not found").
    """
    limit = req.int_param('limit', minimum=0)
    marker = req.GET.get('marker')
    if marker is not None:
        for index, item in enumerate(items):
            if str(item[key]) == marker:
                items = items[index + 1:]
                break
        else:
            raise wsgi.HTTPError(400, 'marker [%s] not found' % marker)
    limit = CONF.api.max_limit if limit is None else min(limit, CONF.api.max_limit)
    return items[:limit], len(items) > limit


def next_link(req, path_parts, last_id):
    """A rel=next link to the page after ``last_id``, keeping the query's filters."""
    query = [(k, v) for k, v in req.GET.items() if k != 'marker']
    query.append(('marker', last_id))
    return [{'rel': 'next', 'href': '%s?%s' % (service_url(req, *path_parts),
                                               urllib.parse.urlencode(query))}]


def paged_response(req, collection, items, view):
    """``{collection: [view of each item of the page]}``, with Nova's and Cinder's
    ``<collection>_links`` next link when more items remain."""
    shown, more = page(req, items)
    body = {collection: [view(req, item) for item in shown]}
    if more and shown:
        body[collection + '_links'] = next_link(
            req, req.path_info.strip('/').split('/'), shown[-1]['id'])
    return wsgi.json_response(body)


def validate(body, schema):
    """400 with jsonschema's first complaint when ``body`` does not fit ``schema``."""
    try:
        jsonschema.validate(body, schema)
    except jsonschema.ValidationError as exc:
        where = '/'.join(str(p) for p in exc.absolute_path)
        raise wsgi.HTTPError(400, 'Invalid input for field/attribute %s. Value: %s. '
                                  '%s' % (where or 'body', _short(exc.instance),
                                          exc.message)) from None
    return body


def _short(value, limit=200):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + '...'
