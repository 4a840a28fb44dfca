"""A rebuild's swap of the root disk: the old file is never lost, a re-run after a
crash finishes the swap, an undo puts the old file back (real files; the pool's
directory is a temporary one)."""

import os

import pytest

from provisioner.virt.libvirt import storage

ROOT, NEW, OLD = 'root.qcow2', 'root.qcow2.rebuild', 'root.qcow2.previous'


class _Pool:
    def __init__(self, path):
        self.path = path
        self.refreshed = 0

    def XMLDesc(self, flags):
        return '<pool><target><path>%s</path></target></pool>' % self.path

    def refresh(self, flags):
        self.refreshed += 1


@pytest.fixture
def pool(tmp_path):
    directory = tmp_path / 'pool'
    directory.mkdir()
    (directory / ROOT).write_text('old disk')
    (directory / NEW).write_text('new disk')
    return _Pool(str(directory))


def _files(pool):
    return {name: open(os.path.join(pool.path, name)).read()
            for name in sorted(os.listdir(pool.path))}


def test_swap_in_keeps_the_old_disk_aside_and_a_rerun_changes_nothing(pool):
    storage.swap_in(pool, ROOT, NEW, OLD)
    assert _files(pool) == {ROOT: 'new disk', OLD: 'old disk'}
    storage.swap_in(pool, ROOT, NEW, OLD)
    assert _files(pool) == {ROOT: 'new disk', OLD: 'old disk'}


def test_a_swap_cut_short_after_the_link_is_finished_by_a_rerun(pool):
    os.link(os.path.join(pool.path, ROOT), os.path.join(pool.path, OLD))
    storage.swap_in(pool, ROOT, NEW, OLD)
    assert _files(pool) == {ROOT: 'new disk', OLD: 'old disk'}


@pytest.mark.parametrize('swapped', [True, False])
def test_swap_back_puts_the_old_disk_back_and_drops_the_new(pool, swapped):
    if swapped:
        storage.swap_in(pool, ROOT, NEW, OLD)
    storage.swap_back(pool, ROOT, NEW, OLD)
    assert _files(pool) == {ROOT: 'old disk'}
    storage.swap_back(pool, ROOT, NEW, OLD)
    assert _files(pool) == {ROOT: 'old disk'}
