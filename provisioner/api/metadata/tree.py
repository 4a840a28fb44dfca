"""The paths of the metadata service and what each serves, as Nova's
nova/api/metadata/base.py lays them out: the OpenStack tree under /openstack (a
version, then meta_data.json, user_data, vendor_data.json, network_data.json,
vendor_data2.json) and the EC2 tree everywhere else (/<version>/meta-data/...,
/<version>/user-data). The documents are the config drive's
(compute.guest_documents), built from the instance as it is now.
"""

import base64
import datetime
import json
import os
import posixpath

from provisioner.compute import guest_documents

FOLSOM, GRIZZLY, HAVANA, LIBERTY = '2012-08-10', '2013-04-04', '2013-10-17', '2015-10-15'
NEWTON_ONE, NEWTON_TWO, OCATA, ROCKY = '2016-06-30', '2016-10-06', '2017-02-22', '2018-08-27'
VICTORIA, EPOXY = '2020-10-14', '2025-04-04'
OPENSTACK_VERSIONS = (FOLSOM, GRIZZLY, HAVANA, LIBERTY, NEWTON_ONE, NEWTON_TWO, OCATA,
                      ROCKY, VICTORIA, EPOXY)
LATEST = 'latest'

TEXT = 'text/plain'
JSON = 'application/json'

# The files of an OpenStack version, and the version that brought each (Nova's
# _handle_version; its 'password' is not served here).
_FILES = (('meta_data.json', FOLSOM), ('user_data', FOLSOM),
          ('vendor_data.json', HAVANA), ('network_data.json', LIBERTY),
          ('vendor_data2.json', NEWTON_TWO))


class NotServed(Exception):
    """No such path (for this instance): the service answers 404."""


def _json(document):
    return json.dumps(document).encode(), JSON


def listing(data):
    """Nova's ec2_md_print of a directory: its entries sorted, one a line, a
    subdirectory with a trailing '/' or under its '_name'."""
    if isinstance(data, (list, tuple)):
        return '\n'.join(data)
    lines = []
    for key in sorted(data):
        if key == '_name':
            continue
        value = data[key]
        if isinstance(value, dict):
            lines.append(value.get('_name') or key + '/')
        else:
            lines.append(key)
    return '\n'.join(lines)


def _text(data):
    if isinstance(data, bytes):
        return data, TEXT
    if isinstance(data, (dict, list, tuple)):
        return listing(data).encode(), TEXT
    return str(data).encode(), TEXT


def root_listing():
    """What / lists, to anyone: the EC2 versions."""
    return listing(list(guest_documents.EC2_VERSIONS) + [LATEST]).encode(), TEXT


def _openstack_version(name):
    version = OPENSTACK_VERSIONS[-1] if name == LATEST else name
    if version not in OPENSTACK_VERSIONS:
        raise NotServed(name)
    return version


def _meta_data(record, version):
    data = guest_documents.meta_data(record.request)
    if version >= GRIZZLY:
        data['random_seed'] = base64.b64encode(os.urandom(512)).decode('ascii')
    if version < LIBERTY:
        data.pop('project_id', None)
    if version >= NEWTON_ONE:  # the tagged devices now (attachments included)
        data['devices'] = list(record.devices)
    else:
        data.pop('devices', None)
    if version >= VICTORIA:
        data['dedicated_cpus'] = []
    return data


def _openstack_file(record, version, name):
    if name == 'meta_data.json':
        return _json(_meta_data(record, version))
    if name == 'user_data':
        if record.user_data is None:
            raise NotServed(name)
        return bytes(record.user_data), TEXT
    if name == 'network_data.json':
        return _json(guest_documents.network_data(record.ports))
    if name == 'vendor_data.json':
        return _json({})  # Nova's StaticJSON provider with no file
    if name == 'vendor_data2.json':
        return _json({'static': {}})
    raise NotServed(name)


def _openstack(record, tokens):
    if not tokens:
        today = datetime.date.today().isoformat()
        return listing([v for v in OPENSTACK_VERSIONS if v <= today] + [LATEST]).encode(), \
            TEXT
    version = _openstack_version(tokens[0])
    files = [name for name, since in _FILES if since <= version
             and (name != 'user_data' or record.user_data is not None)]
    if len(tokens) == 1:
        return listing(files).encode(), TEXT
    name = '/'.join(tokens[1:])
    if name not in files:
        raise NotServed(name)
    return _openstack_file(record, version, name)


def _ec2(record, tokens):
    if not tokens:
        return root_listing()
    version = guest_documents.EC2_VERSIONS[-1] if tokens[0] == LATEST else tokens[0]
    if version not in guest_documents.EC2_VERSIONS:
        raise NotServed(tokens[0])
    data = {'meta-data': guest_documents.ec2_meta_data(
        record.request, record.ports, version, record.flavor_name,
        record.security_groups)}
    if record.user_data is not None:
        data['user-data'] = bytes(record.user_data)
    for token in tokens[1:]:
        if not isinstance(data, dict) or token not in data or token == '_name':
            raise NotServed('/'.join(tokens))
        data = data[token]
    return _text(data)


def lookup(record, path):
    """(body bytes, content type) of ``path`` for the instance of ``record``
    (compute.guest_metadata.GuestRecord); NotServed for a path that has nothing."""
    path = posixpath.normpath('/' + path.lstrip('/'))
    tokens = [t for t in path.split('/') if t]
    if tokens and tokens[0] == 'openstack':
        return _openstack(record, tokens[1:])
    if tokens and tokens[0] == 'ec2':
        tokens = tokens[1:]
    return _ec2(record, tokens)
