"""What the services' controllers and views share: times and pages."""

import datetime

from provisioner.api import urls
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


def object_time(moment):
    """Nova's objects serialise times without a zone, with microseconds:
    2018-04-25T01:26:29.000000 (instance actions, services, key pairs)."""
    return None if moment is None else moment.strftime('%Y-%m-%dT%H:%M:%S.%f')


def _limit(req):
    limit = req.int_param('limit', minimum=0)
    return CONF.api.max_limit if limit is None else min(limit, CONF.api.max_limit)


def page(req, items, key='id', cinder=False):
    """The page of ``items`` (in order) that ``limit`` and ``marker`` ask for.

    Returns (items, more): ``more`` is true when items remain after the page. A
    marker that is not in the list is 400, as in Nova ("marker not found"); with
    ``cinder``, 404 as in Cinder, and ``offset`` skips that many items after it.
    """
    limit = _limit(req)
    marker = req.GET.get('marker')
    if marker is not None:
        for index, item in enumerate(items):
            if str(item[key]) == marker:
                items = items[index + 1:]
                break
        else:
            if cinder:
                raise wsgi.HTTPError(404, 'Marker %s could not be found.' % marker)
            raise wsgi.HTTPError(400, 'marker [%s] not found' % marker)
    if cinder:
        items = items[req.int_param('offset', minimum=0) or 0:]
    return items[:limit], len(items) > limit


def paged_response(req, collection, items, view, after_full_page=False, prepare=None):
    """``{collection: [view of each item of the page]}``, with Nova's and Cinder's
    ``<collection>_links`` next link when more items remain, or (``after_full_page``,
    Cinder's rule) after any full page, even when it was the last (and Cinder's
    paging: ``offset``, 404 for a marker not found). ``prepare``, if given, is
    called with the page's items before the views (to read what they need for the
    whole page at once)."""
    shown, more = page(req, items, cinder=after_full_page)
    if prepare is not None:
        prepare(shown)
    body = {collection: [view(req, item) for item in shown]}
    if shown and (more or (after_full_page and len(shown) == _limit(req))):
        body[collection + '_links'] = urls.next_link(
            req, req.path_info.strip('/').split('/'), shown[-1]['id'])
    return wsgi.json_response(body)
