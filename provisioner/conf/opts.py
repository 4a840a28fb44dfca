"""Entry point for oslo-config-generator: every option group, from every area module."""

from provisioner.conf import _AREAS


def list_opts():
    groups = {}
    for area in _AREAS:
        for group, opts in area.list_opts().items():
            groups.setdefault(group, []).extend(opts)
    return sorted(groups.items())
