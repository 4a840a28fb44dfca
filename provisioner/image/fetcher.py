"""Bring an image's files to this host's image cache (steps 19-21 of the request flow).

Distributed, a host has no access to the image store or to the files an operator
registered: its worker downloads them from the image API (``GET
/image/v2/images/{id}/file``) as the service user of ``[image_service]``, as
Nova's compute does from Glance with its ``[glance]`` and ``[service_user]``
settings; the token's catalog names the image endpoint. Without ``[image_service]
auth_url`` (all-in-one: the API, the store and the hypervisor are one machine) the
files are read where the image row says they are.

Either way the cache (provisioner.image.cache) copies each file once per host,
verifies its sha256 and shares the copy among concurrent boots. This module knows
no database: what to fetch comes in the step's payload.
"""

import contextlib
import dataclasses
import http.client
import json
import logging
import os
import threading
import time
import urllib.parse

from provisioner.client import http as rest
from provisioner.conf import CONF
from provisioner import exception
from provisioner.image import rbd_store
from provisioner import redact

LOG = logging.getLogger(__name__)

PARTS = ('disk', 'kernel', 'ramdisk')
_RENEW_MARGIN = 60  # seconds: a token this close to its expiry is replaced first


class ImageUnavailable(exception.ProvisionerError):
    """The image API could not be reached or refused a download (may reschedule)."""

    msg_fmt = ('The %(part)s of image %(image)s could not be downloaded from the '
               'image API at %(url)s: %(reason)s')


class ImageUploadFailed(exception.ProvisionerError):
    msg_fmt = ('The data of image %(image)s could not be uploaded to the image API at '
               '%(url)s: %(reason)s')


@dataclasses.dataclass
class ImageFile:
    """One file of an image to bring to the host: the engine fills it in."""

    image_id: str
    part: str        # disk, kernel or ramdisk
    sha256: str
    path: str | None = None  # where the image row says it is (all-in-one reads it)


def cache_directory():
    """This host's image cache ([image] cache_directory, else $state_path/images)."""
    return CONF.image.cache_directory or os.path.join(CONF.state_path, 'images')


def fetch(cache, image_file):
    """The cached, verified path of ``image_file`` on this host."""
    if image_file.part not in PARTS:
        raise exception.Invalid(reason='an image has no part %r' % image_file.part)
    if not CONF.image_service.auth_url:
        if rbd_store.is_location(image_file.path):  # an image in RBD, all-in-one
            return cache.ensure(image_file.image_id, image_file.sha256,
                                lambda: rbd_store.Reader(image_file.path),
                                image_file.path)
        return cache.fetch(image_file.image_id, image_file.path, image_file.sha256)
    client = service_client()
    return cache.ensure(image_file.image_id, image_file.sha256,
                        lambda: client.download(image_file.image_id, image_file.part),
                        'the %s downloaded from the image API' % image_file.part)


class ImageServiceClient:
    """The image API as this host's service user: one token, renewed when due."""

    def __init__(self, auth_url, username, password, project_name,
                 endpoint_override=None, timeout=60):
        self.auth_url = rest.identity_base(auth_url)
        self._username, self._password = username, password
        self._project_name = project_name
        self._endpoint_override = endpoint_override
        self._timeout = timeout
        self._lock = threading.Lock()
        self._token = self._expires = self._endpoint = None
        redact.register(password)

    def _authenticate(self):
        request = {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': self._username, 'password': self._password,
                'domain': rest.DOMAIN}}},
            'scope': {'project': {'name': self._project_name, 'domain': rest.DOMAIN}}}}
        url = self.auth_url + '/auth/tokens'
        try:
            status, reason, headers, body = rest.send('POST', url, request)
        except (OSError, http.client.HTTPException) as exc:
            raise ImageUnavailable(part='data', image='(any)', url=self.auth_url,
                                   reason='identity: %s' % rest.failure_reason(exc)) from None
        if status != 201:
            raise ImageUnavailable(
                part='data', image='(any)', url=self.auth_url,
                reason='the service user %s cannot log in ([image_service] username, '
                       'password, project_name): %s' % (
                           self._username, rest.error_message(body, status, reason)))
        token = headers.get('X-Subject-Token')
        redact.register(token)
        body = json.loads(body)['token']
        endpoint = self._endpoint_override or _image_endpoint(body.get('catalog'))
        if not endpoint:
            raise ImageUnavailable(part='data', image='(any)', url=self.auth_url,
                                   reason='the token\'s catalog has no image endpoint')
        if self._token != token:
            # Replaced (expiring, or refused): kept, the worker would hold one more
            # secret per renewal for its life.
            redact.forget(self._token)
        self._token, self._endpoint = token, endpoint.rstrip('/')
        self._expires = rest.token_expiry(body)

    def _credentials(self, renew=False):
        with self._lock:
            if renew or self._token is None \
                    or self._expires - time.time() < _RENEW_MARGIN:
                self._authenticate()
            return self._token, self._endpoint

    def upload(self, image_id, path):
        """PUT the file at ``path`` as the image's data (a server's snapshot): the
        image service checks, hashes and stores it as any upload."""
        for attempt in (1, 2):
            token, endpoint = self._credentials(renew=attempt == 2)
            url = '%s/v2/images/%s/file' % (endpoint, urllib.parse.quote(image_id,
                                                                         safe=''))
            with open(path, 'rb') as data:
                headers = {'X-Auth-Token': token, 'User-Agent': 'provisioner-worker',
                           'Content-Type': 'application/octet-stream',
                           'Content-Length': str(os.fstat(data.fileno()).st_size)}
                try:
                    status, reason, _headers, body = rest.send('PUT', url, data, headers)
                except (OSError, http.client.HTTPException) as exc:
                    raise ImageUploadFailed(image=image_id, url=endpoint,
                                            reason=rest.failure_reason(exc)) from None
            if status != 401:  # 401: revoked, or keys rotated: log in again once
                break
        if status != 204:
            raise ImageUploadFailed(image=image_id, url=endpoint,
                                    reason=rest.error_message(body, status, reason))
        LOG.info('Uploaded the data of image %s to %s', image_id, endpoint)

    @contextlib.contextmanager
    def download(self, image_id, part):
        """A context manager of the response stream with the part's bytes."""
        token, endpoint = self._credentials()
        response = conn = None
        for attempt in (1, 2):
            url = '%s/v2/images/%s/file?%s' % (
                endpoint, urllib.parse.quote(image_id, safe=''),
                urllib.parse.urlencode({'part': part}))
            conn = rest.connection(url)
            conn.timeout = self._timeout
            try:
                target = urllib.parse.urlsplit(url)
                conn.request('GET', '%s?%s' % (target.path, target.query), headers={
                    'X-Auth-Token': token, 'User-Agent': 'provisioner-worker',
                    'Accept': 'application/octet-stream'})
                response = conn.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                raise ImageUnavailable(part=part, image=image_id, url=endpoint,
                                       reason=rest.failure_reason(exc)) from None
            if response.status == 401 and attempt == 1:
                conn.close()  # revoked, or keys rotated: log in again once
                token, endpoint = self._credentials(renew=True)
                continue
            break
        try:
            if response.status != 200:
                body = response.read(64 * 1024)
                error = ImageUnavailable(
                    part=part, image=image_id, url=endpoint,
                    reason=rest.error_message(body, response.status, response.reason))
                if response.status == 404:
                    raise exception.ImageInvalid(image=image_id, reason=str(error))
                raise error
            LOG.info('Downloading the %s of image %s from %s (%s bytes)', part,
                     image_id, endpoint, response.getheader('Content-Length', '?'))
            yield _Checked(response, image_id, part, endpoint)
        finally:
            conn.close()


class _Checked:
    """The response body; a connection cut off mid-way is ImageUnavailable."""

    def __init__(self, response, image_id, part, endpoint):
        self._response, self._what = response, (image_id, part, endpoint)

    def read(self, size):
        try:
            return self._response.read(size)
        except (OSError, http.client.HTTPException) as exc:
            image_id, part, endpoint = self._what
            raise ImageUnavailable(part=part, image=image_id, url=endpoint,
                                   reason='the download broke off: %s'
                                          % (rest.failure_reason(exc))) from None


def upload(image_id, path):
    """Upload a file of this host to a queued image through the image API; False
    all-in-one (no [image_service] auth_url), where the caller reads the file."""
    if not CONF.image_service.auth_url:
        return False
    service_client().upload(image_id, path)
    return True


def _image_endpoint(catalog):
    for service in catalog or ():
        if service.get('type') == 'image':
            for endpoint in service.get('endpoints') or ():
                if endpoint.get('interface') in ('internal', 'public'):
                    return endpoint.get('url')
    return None


_client = None
_client_lock = threading.Lock()


def service_client():
    """This process's client of the image API (one token shared by every fetch)."""
    global _client
    conf = CONF.image_service
    key = (conf.auth_url, conf.username, conf.password, conf.project_name,
           conf.endpoint_override)
    with _client_lock:
        if _client is None or _client[0] != key:
            _client = (key, ImageServiceClient(*key, timeout=conf.timeout))
        return _client[1]
