"""The steps' shared base: arguments mapped once per class, exactly as TaskFlow maps them."""

from unittest import mock

from taskflow import task

from tests.unit.flows.conftest import atoms

from flows import boot
from flows import delete
from flows.steps import base


def _mappings(flow):
    return {atom.name: (dict(atom.rebind), list(atom.requires), list(atom.optional),
                        dict(atom.revert_rebind), list(atom.revert_optional))
            for atom in atoms(flow)}


def test_cached_argument_mappings_are_taskflows():
    for factory in (boot.create_flow, delete.create_flow):
        factory()  # fills the cache
        cached = _mappings(factory())
        with mock.patch.object(base.ProvisionerTask, '_build_arg_mapping',
                               task.Task._build_arg_mapping):
            assert cached == _mappings(factory())


def test_each_atom_gets_its_own_copy():
    first, second = boot.create_flow(), boot.create_flow()
    one = next(atoms(first))
    other = next(atom for atom in atoms(second) if atom.name == one.name)
    assert one.rebind == other.rebind and one.rebind is not other.rebind
    assert one.requires is not other.requires
