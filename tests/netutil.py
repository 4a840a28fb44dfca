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
    taken = _routed()
    start = secrets.randbelow(200)
    worker, workers = _xdist_worker()
    for third in list(range(start, 256)) + list(range(0, start)):
        if third % workers != worker:
            continue
        candidate = ipaddress.ip_network('10.%d.%d.0/24' % (second_octet, third))
        if not any(candidate.overlaps(net) for net in taken):
            return str(candidate)
    raise RuntimeError('no free 10.%d.x.0/24 for a test network' % second_octet)


def free_range(second_octets=range(240, 252)):
    """A free 10.<n>.0.0/16 (no route of this machine overlaps it), for a client that
    carves its own subnets out of it (tempest's project_network_cidr)."""
    taken = _routed()
    for second in second_octets:
        candidate = ipaddress.ip_network('10.%d.0.0/16' % second)
        if not any(candidate.overlaps(net) for net in taken):
            return str(candidate)
    raise RuntimeError('no free 10.x.0.0/16 in 10.%d-%d'
                       % (second_octets[0], second_octets[-1]))


def _routed():
    """The networks of every route table (the default route's 0.0.0.0/0 aside)."""
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
    return taken


def _xdist_worker():
    """(index, count) of this pytest-xdist worker; (0, 1) outside pytest-xdist."""
    name = os.environ.get('PYTEST_XDIST_WORKER', 'gw0')
    return int(name[2:]), int(os.environ.get('PYTEST_XDIST_WORKER_COUNT', '1'))
