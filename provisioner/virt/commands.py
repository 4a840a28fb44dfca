"""Running a host's network commands (iproute2, dnsmasq) with their errors as the
driver's: one place for the timeout and the message."""

import json
import subprocess

from provisioner import exception


def run(argv, check=True, timeout=30):
    """The CompletedProcess (text) of ``argv``; HypervisorError when it cannot run
    or (``check``) fails."""
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise exception.HypervisorError(reason='%s: %s' % (' '.join(argv), exc))
    if check and result.returncode != 0:
        raise exception.HypervisorError(reason='%s failed: %s' % (
            ' '.join(argv), (result.stderr or result.stdout).strip()))
    return result


def ip(netns=None):
    """``ip``, in the network namespace ``netns`` when given."""
    return ['ip'] + (['-n', netns] if netns else [])


def link(name, netns=None):
    """``ip -j -d link show`` of the device, or None when there is none."""
    result = run(ip(netns) + ['-j', '-d', 'link', 'show', 'dev', name], check=False)
    if result.returncode != 0:
        return None
    found = json.loads(result.stdout or '[]')
    return found[0] if found else None
