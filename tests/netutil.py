"""Test networks: pick a subnet that nothing on this machine routes or uses."""

import ipaddress
import secrets
import subprocess


def free_cidr(second_octet=252):
    """A free 10.<second_octet>.x.0/24 (checked against every route table)."""
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
    for third in list(range(start, 256)) + list(range(0, start)):
        candidate = ipaddress.ip_network('10.%d.%d.0/24' % (second_octet, third))
        if not any(candidate.overlaps(net) for net in taken):
            return str(candidate)
    raise RuntimeError('no free 10.%d.x.0/24 for a test network' % second_octet)
