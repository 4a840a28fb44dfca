"""The compiled flow structures the API shows are cached, within a bound."""

from provisioner.engine import flow_view


def test_the_structure_cache_is_bounded():
    # A volume action's factory argument is its volume id: one entry per volume.
    for n in range(flow_view.STRUCTURES_MAX + 20):
        found = flow_view.structure('flows.volume.attach_flow', ['volume-%d' % n])
        assert found.atom_names()[0] == 'volume-action-guard'
    assert flow_view._structure.cache_info().currsize == flow_view.STRUCTURES_MAX
