"""What the compute API tests share: the API's root, microversion headers, Nova's
error body."""

V = '/compute/v2.1'


def microversion(version):
    return {'OpenStack-API-Version': 'compute %s' % version}


def fault(response):
    """(name, message) of a Nova error body."""
    [(name, body)] = response.json.items()
    assert body['code'] == response.status_int
    return name, body['message']
