"""Nova's query string checks: from 2.75 an unknown query parameter is a 400."""

from provisioner.api import wsgi

STRICT_SINCE = (2, 75)


def check(req, allowed, since=STRICT_SINCE):
    """400 in Nova's words for a parameter not in ``allowed`` (at >= ``since``)."""
    if req.api_version < since:
        return
    unknown = sorted(set(req.GET) - set(allowed))
    if unknown:
        raise wsgi.HTTPError(400, 'Invalid input for query parameters %s. Value: %s. '
                                  'Additional properties are not allowed (%s %s '
                                  'unexpected)'
                             % (unknown[0], req.GET[unknown[0]],
                                ', '.join(repr(u) for u in unknown),
                                'was' if len(unknown) == 1 else 'were'))


_NOT_FOUND = 'The resource could not be found.'


def not_routed():
    """404 as Nova answers a path it routes nowhere (an id left empty: /x/)."""
    raise wsgi.HTTPError(404, _NOT_FOUND)


def removed_at(req, version):
    """404 as Nova answers a route a microversion removed."""
    if req.api_version >= version:
        raise wsgi.HTTPError(404, _NOT_FOUND)


def added_at(req, version):
    """404 as Nova answers a route before the microversion that added it."""
    if req.api_version < version:
        raise wsgi.HTTPError(404, _NOT_FOUND)
