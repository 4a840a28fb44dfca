"""Test networks: pick a subnet that nothing on this machine routes or uses."""

import ipaddress
import os
import secrets
import subprocess


def free_cidr(second_octet=252):
    """A free 10.<second_octet>.x.0/24 (checked against every route table).

    Parallel test workers (pytest-xdist) pick from disjoint thirds of the range: two
    networks picked at once, before either is routed, never collide.
    """
    routes = subprocess.run(['ip', '-4', 'route', 'show', 'table', 'all'],
                            capture_output=True, text=True).stdout
    taken = []
    for word in routes.split():
        try:
            net = ipaddress.ip_network(word, strict=False)
        except ValueError:
            continue
        if net.prefixlen >= 8:
            taken.append(net)
    start = secrets.randbelow(200)
    worker, workers = _xdist_worker()
    for third in list(range(start, 256)) + list(range(0, start)):
        if third % workers != worker:
            continue
        candidate = ipaddress.ip_network('10.%d.%d.0/24' % (second_octet, third))
        if not any(candidate.overlaps(net) for net in taken):
            return str(candidate)
    raise RuntimeError('no free 10.%d.x.0/24 for a test network' % second_octet)


def _xdist_worker():
    """(index, count) of this pytest-xdist worker; (0, 1) outside pytest-xdist."""
    name = os.environ.get('PYTEST_XDIST_WORKER', 'gw0')
    return int(name[2:]), int(os.environ.get('PYTEST_XDIST_WORKER_COUNT', '1'))
