"""A detach asks the guest again while it holds the disk: a guest that was still
booting ignores the first request (hotplug.DETACH_RESEND_S)."""

import pytest

from provisioner import exception
from provisioner.virt.libvirt import hotplug

PATH = '/pool/volume-v1'


class _Guest:
    """Releases vdb on the ``honoured``-th live unplug request; a refusal of a
    repeated request (libvirt: unplug already pending) when ``refuse_repeats``."""
    name = 'instance-x'

    def __init__(self, honoured, refuse_repeats=False):
        self.honoured, self.refuse_repeats = honoured, refuse_repeats
        self.live = {'vda': '/root', 'vdb': PATH}
        self.defined = dict(self.live)
        self.requests = 0

    def is_active(self):
        return True

    def disks(self, live=True):
        return dict(self.live if live else self.defined)

    def detach_device(self, xml, live=True, persistent=True):
        if persistent:
            self.defined.pop('vdb', None)
        if not live:
            return
        self.requests += 1
        if self.requests == self.honoured:
            self.live.pop('vdb')
        elif self.requests > 1 and self.refuse_repeats:
            raise exception.HypervisorError(
                reason='device vdb is already in the process of unplug')


@pytest.fixture(autouse=True)
def fast_resend(monkeypatch):
    monkeypatch.setattr(hotplug, 'DETACH_RESEND_S', 0.05)


@pytest.mark.parametrize('refuse_repeats', [False, True])
def test_a_guest_that_ignored_the_first_request_releases_the_disk(refuse_repeats):
    guest = _Guest(honoured=3, refuse_repeats=refuse_repeats)
    hotplug.detach(guest, PATH, 'v1', timeout=5, interval=0.01)
    assert 'vdb' not in guest.live and 'vdb' not in guest.defined
    assert guest.requests == 3


def test_a_guest_that_never_releases_it_fails_after_the_timeout_having_been_asked_again():
    guest = _Guest(honoured=None)
    with pytest.raises(exception.HypervisorError, match='did not release disk vdb'):
        hotplug.detach(guest, PATH, 'v1', timeout=0.3, interval=0.01)
    assert guest.requests > 1
