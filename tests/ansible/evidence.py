"""What a failed task or call sent and got back: from provisioner-api's log and from
openstacksdk's HTTP debug log (keystoneauth's REQ/RESP lines).

provisioner-api logs each request once it is answered, under its request id:
``<time> <pid> INFO provisioner.api.app [req-...]: POST /compute/v2.1/servers: 400
<message>``. openstacksdk, with ``http_debug``, logs the request as a curl command
line (its headers, the microversion among them, and its JSON body; never the
password: keystoneauth does not log token requests) and the response's status,
headers (its request id among them) and JSON body. Both carry a timestamp of this
machine's local time, which places each request within a task's or a call's start
and end.
"""

import dataclasses
import datetime
import re

_TIME = r'(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})'
_API_ANSWERED = re.compile(_TIME + r' \d+ \w+ provisioner\.api\.app \[(req-[^\]]+)\]: '
                                   r'(\S+) (\S+): (\d{3})\b ?(.*)$')
_API_FAILED = re.compile(_TIME + r' \d+ \w+ provisioner\.api\.app \[(req-[^\]]+)\]: '
                                 r'(\S+) (\S+) failed$')
_SDK_LINE = re.compile(_TIME + r' DEBUG: keystoneauth\.session (REQ|RESP|RESP BODY): (.*)$')
_CURL = re.compile(r'curl -g -i (?:--insecure )?(?:--cacert "[^"]*" )?-X (\S+) "?([^" ]+)"?')
_MICROVERSION = re.compile(r'-H "OpenStack-API-Version: ([^"]+)"')
_BODY = re.compile(r" -d '(.*)'$")
_STATUS = re.compile(r'^\[(\d{3})\]')
_REQUEST_ID = re.compile(r'x-openstack-request-id: (req-\S+)', re.IGNORECASE)
FRAGMENT = 400  # characters of a body shown


def _epoch(text):
    return datetime.datetime.strptime(text, '%Y-%m-%d %H:%M:%S,%f').timestamp()


def _cut(text, size=FRAGMENT):
    """text, at most size characters of it (None: all)."""
    text = (text or '').strip()
    return text if size is None or len(text) <= size else text[:size] + '...'


@dataclasses.dataclass
class ApiRequest:
    """One request as provisioner-api logged it."""
    time: float
    request_id: str
    method: str
    path: str
    status: int
    message: str

    def describe(self, size=FRAGMENT):
        return '%s %s: %d %s (%s)' % (self.method, self.path, self.status,
                                      _cut(self.message, size), self.request_id)


@dataclasses.dataclass
class Exchange:
    """One request as openstacksdk logged it, with its response."""
    time: float
    method: str
    url: str
    microversion: str = ''
    body: str = ''
    status: int = 0
    request_id: str = ''
    response: str = ''

    @property
    def path(self):
        return re.sub(r'^https?://[^/]+', '', self.url)

    def describe(self, size=FRAGMENT):
        """The request and its response, their bodies cut to size characters
        (None: whole)."""
        return '%s %s%s%s -> %s %s (%s)' % (
            self.method, self.path,
            ' [%s]' % self.microversion if self.microversion else '',
            ' %s' % _cut(self.body, size) if self.body else '',
            self.status or 'no response', _cut(self.response, size),
            self.request_id or '-')


def api_requests(text):
    """provisioner-api's log as ApiRequests, in order."""
    found = []
    for line in text.splitlines():
        match = _API_ANSWERED.match(line)
        if match:
            when, rid, method, path, status, message = match.groups()
            found.append(ApiRequest(_epoch(when), rid, method, path, int(status),
                                    message))
            continue
        match = _API_FAILED.match(line)
        if match:
            when, rid, method, path = match.groups()
            found.append(ApiRequest(_epoch(when), rid, method, path, 500,
                                    'a traceback in the log'))
    return found


def exchanges(text):
    """openstacksdk's HTTP debug log as Exchanges, in order (the requests of one
    process are sequential; the playbook's modules and the SDK script run one at a
    time)."""
    found = []
    for line in text.splitlines():
        match = _SDK_LINE.match(line)
        if not match:
            continue
        when, kind, rest = match.groups()
        if kind == 'REQ':
            curl = _CURL.match(rest)
            if curl is None:
                continue
            body = _BODY.search(rest)
            version = _MICROVERSION.search(rest)
            found.append(Exchange(_epoch(when), curl.group(1), curl.group(2),
                                  version.group(1) if version else '',
                                  body.group(1) if body else ''))
        elif found and kind == 'RESP':
            status = _STATUS.match(rest)
            rid = _REQUEST_ID.search(rest)
            found[-1].status = int(status.group(1)) if status else 0
            found[-1].request_id = rid.group(1) if rid else ''
        elif found and kind == 'RESP BODY':
            found[-1].response = rest
    return found


def within(items, start, end, slack=0.001):
    """The items (ApiRequests or Exchanges) logged between start and end (seconds
    since the epoch; the logs' times are cut down to the millisecond)."""
    return [i for i in items if start - slack <= i.time <= end]


def failing(items):
    """The request most likely behind a failure, of items: the last one that failed
    (status 400 and above) other than a GET answered 404 (the clients look every
    name up that way first), else the last one that changed something (neither a
    GET nor a token request), else the last one but a token request; None when
    there is none."""
    items = [i for i in items if not i.path.endswith('/auth/tokens')]
    for chosen in ([i for i in items if i.status >= 400
                    and not (i.method == 'GET' and i.status == 404)],
                   [i for i in items if i.method != 'GET'], items):
        if chosen:
            return chosen[-1]
    return None


_LOG_LINE = re.compile(_TIME + r' \d+ (\w+) \S+ \[(req-[^\]]+)\]: (.*)$', re.MULTILINE)


def aftermath(text, request_id, limit=3):
    """What provisioner-api logged of a request's flow after answering it: its
    warnings, errors and rollbacks (a detach the guest did not let go of answers
    202, then rolls back). At most limit lines, the last ones."""
    found = [message for _, level, rid, message in _LOG_LINE.findall(text)
             if rid == request_id and (level in ('WARNING', 'ERROR')
                                       or 'rolled back' in message)]
    return found[-limit:]
