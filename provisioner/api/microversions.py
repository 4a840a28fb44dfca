"""Microversions as Nova and Cinder negotiate them, for a service that has them.

A request names one in ``OpenStack-API-Version: <service type> X.Y`` (or a legacy
header, Nova's ``X-OpenStack-Nova-API-Version``); ``latest`` is the maximum, none
is the minimum; a malformed one is 400, one outside [minimum, maximum] is 406. The
response echoes the version it was served at. A controller reads it as
``req.api_version``, a (major, minor) tuple comparable with ``(2, 3)``.
"""

import re

from provisioner.api import wsgi

_VERSION_RE = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')


def version_str(version):
    return '%d.%d' % version


class Microversions:
    """The microversions of one service type, from ``minimum`` to ``maximum``."""

    def __init__(self, service_type, minimum, maximum, legacy_header=None):
        self.service_type = service_type
        self.minimum = minimum
        self.maximum = maximum
        self.legacy_header = legacy_header

    def _requested(self, req):
        # Repeated headers reach WSGI joined by commas: "compute 2.3, volume 3.0".
        for part in req.headers.get('OpenStack-API-Version', '').split(','):
            service, _, value = part.strip().partition(' ')
            if service.lower() == self.service_type and value.strip():
                return value.strip()
        if self.legacy_header:
            return req.headers.get(self.legacy_header, '').strip() or None
        return None

    def negotiate(self, req):
        """The microversion to serve ``req`` at; HTTPError 400/406 when none can be."""
        value = self._requested(req)
        if value is None:
            return self.minimum
        if value.lower() == 'latest':
            return self.maximum
        match = _VERSION_RE.match(value)
        if match is None:
            raise wsgi.HTTPError(400, 'API Version String %s is of invalid format. Must '
                                      'be of format MajorNum.MinorNum.' % value)
        version = (int(match.group(1)), int(match.group(2)))
        if not self.minimum <= version <= self.maximum:
            raise wsgi.HTTPError(406, 'Version %s is not supported by the API. Minimum '
                                      'is %s and maximum is %s.'
                                 % (value, version_str(self.minimum),
                                    version_str(self.maximum)))
        return version

    def headers(self, version):
        """The headers that echo the version served (the minimum when none was)."""
        served = version_str(version or self.minimum)
        found = {'OpenStack-API-Version': '%s %s' % (self.service_type, served),
                 'Vary': 'OpenStack-API-Version'}
        if self.legacy_header:
            found[self.legacy_header] = served
            found['Vary'] += ', ' + self.legacy_header
        return found
