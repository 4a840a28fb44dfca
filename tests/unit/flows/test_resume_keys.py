"""The resume keys of every persisted flow, as release 2.1 wrote them.

A flow detail names its factory by module path and keeps its atoms' state and results
by atom name; a process of a later release rebuilds the flow from that factory and
resumes it by those names. So a boot, power action, attach or detach persisted by
release 2.1 resumes here only if its factories, flow shapes, atom names and what each
atom requires and provides are the same: release_2_1_flow_shapes.json is them, as
that release's code built them. A change to a flow's shape fails here: then make
sure a flow persisted before it still resumes (TaskFlow adds an atom it did not
know; a renamed or removed one strands the state kept under its old name), and
regenerate the file with ``python -m tests.unit.flows.test_resume_keys``.
"""

import json
import pathlib
import sys

from oslo_utils import reflection

FIXTURE = pathlib.Path(__file__).with_name('release_2_1_flow_shapes.json')


def _atom(atom):
    return {'atom': atom.name, 'requires': sorted(atom.requires),
            'optional': sorted(atom.optional), 'provides': sorted(atom.provides),
            'revert_requires': sorted(getattr(atom, 'revert_requires', ())),
            'revert_optional': sorted(getattr(atom, 'revert_optional', ())),
            'inject': atom.inject, 'version': list(atom.version)}


def _shape(flow, path=()):
    path += ('%s (%s)' % (flow.name, type(flow).__module__.rpartition('.')[2]),)
    shape = [{'flow': ' / '.join(path),
              'retry': flow.retry and _atom(flow.retry),
              'links': sorted([u.name, v.name] for u, v, _meta in flow.iter_links())}]
    for item, _meta in flow.iter_nodes():
        if hasattr(item, 'iter_nodes'):
            shape += _shape(item, path)
        else:
            shape.append(_atom(item))
    return shape


def shapes():
    """{factory path: its flow's shape} of every persisted flow (and the delete flows)."""
    from flows import boot
    from flows import delete
    from flows import power
    from flows import volume
    factories = [(boot.create_flow, ()), (power.stop_flow, ()), (power.start_flow, ()),
                 (power.reboot_flow, (True,)), (volume.attach_flow, ('v',)),
                 (volume.detach_flow, ('v',)), (delete.create_flow, ()),
                 (volume.delete_flow, ())]
    return {reflection.get_callable_name(factory): _shape(factory(*args))
            for factory, args in factories}


def test_every_persisted_flow_resumes_by_the_keys_release_2_1_wrote():
    frozen = json.loads(FIXTURE.read_text())
    current = json.loads(json.dumps(shapes()))
    assert sorted(current) == sorted(frozen)
    for factory in frozen:
        assert current[factory] == frozen[factory], factory


if __name__ == '__main__':
    from provisioner.conf import CONF
    CONF([], project='provisioner', default_config_files=[])
    out = sys.argv[1] if len(sys.argv) > 1 else FIXTURE
    pathlib.Path(out).write_text('{\n%s\n}\n' % ',\n'.join(  # one atom a line
        ' %s: [\n%s\n ]' % (json.dumps(factory), ',\n'.join(
            '  ' + json.dumps(item, sort_keys=True) for item in shape))
        for factory, shape in sorted(shapes().items())))
