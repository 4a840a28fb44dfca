"""JSON schemas of the image requests (Glance v2): a create, a JSON patch, a member.

The values of an image's fields and properties are the catalog's to check
(provisioner.catalog.images.CHANGES), in the same words for every caller.
"""

_FALSY = [False, None, 0, '', [], {}]

# Everything is optional, the name too (Glance's); the catalog checks the values.
CREATE = {'type': 'object'}

_OPERATION = 'Each operation needs "op" (add, replace or remove) and "path": {json}'
# Glance's PATCH body (application/openstack-images-v2.1-json-patch).
PATCH = {
    'type': 'array',
    'items': {
        'type': 'object', 'required': ['op', 'path'],
        'properties': {
            'op': {'enum': ['add', 'replace', 'remove'], 'errorMessage': _OPERATION},
            'path': {'type': 'string', 'errorMessage': _OPERATION}},
        'if': {'properties': {'op': {'enum': ['add', 'replace']}}},
        'then': {'required': ['value'],
                 'errorMessage': 'Operation {value[op]} {value[path]} needs a "value".'},
        'errorMessage': {'type': _OPERATION, 'required': _OPERATION}},
    'errorMessage': {'type': 'A JSON patch is a list of operations.'},
}

# POST .../members and PUT .../members/{id}; the values are the catalog's to check.
MEMBER = {'type': 'object', 'required': ['member'],
          'errorMessage': 'Give the project to share with as {{"member": "<project id>"}}.'}
MEMBER_STATUS = {'type': 'object', 'required': ['status'],
                 'errorMessage': 'Give the membership\'s status as {{"status": '
                                 '"accepted"}} (or rejected, pending).'}
