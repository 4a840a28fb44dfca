"""tools/check_import_graph.py: cycles between areas and declared walls fail the check."""

import importlib.util
import pathlib

import pytest

_TOOL = pathlib.Path(__file__).resolve().parents[2] / 'tools' / 'check_import_graph.py'


@pytest.fixture(scope='module')
def checker():
    spec = importlib.util.spec_from_file_location('check_import_graph', _TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _package(root, files):
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    for directory in {(root / path).parent for path in files}:
        (directory / '__init__.py').touch()


def test_a_cycle_through_a_function_level_import_fails_and_is_named(checker, tmp_path):
    _package(tmp_path, {
        'provisioner/volume/volumes.py': 'from provisioner.network import ipam\n',
        'provisioner/network/ipam.py': 'def allocate():\n'
                                       '    from provisioner.volume import volumes\n',
    })
    found = checker.problems(str(tmp_path), forbidden={}, allowed={}, known_cycles=())
    assert found[0] == ('cycle: provisioner.network -> provisioner.volume -> '
                        'provisioner.network')
    assert '    provisioner/network/ipam.py:2 imports provisioner.volume.volumes' in found
    assert checker.main([str(tmp_path)]) == 1


def test_relative_and_from_package_imports_count(checker, tmp_path):
    _package(tmp_path, {
        'provisioner/faults.py': 'from .compute import instances\n',
        'provisioner/compute/instances.py': 'from provisioner import faults\n',
        'flows/boot.py': 'from provisioner.compute import instances\n',
    })
    found = checker.problems(str(tmp_path), forbidden={}, allowed={}, known_cycles=())
    assert found[0] == 'cycle: provisioner.compute -> provisioner.faults -> ' \
                       'provisioner.compute'


def test_walls(checker, tmp_path):
    _package(tmp_path, {
        'provisioner/db/migration.py': 'from provisioner.engine import persistence\n'
                                       'from provisioner.conf import CONF\n',
        'provisioner/engine/persistence.py': '',
        'provisioner/conf/__init__.py': 'CONF = None\n',
        'provisioner/virt/driver.py': 'import provisioner.db.api\n',
        'provisioner/db/api.py': '',
        'provisioner/api/servers.py': 'from provisioner.virt import driver\n',
    })
    found = checker.problems(str(tmp_path), known_cycles=())
    assert found == [
        'wall: provisioner.api must not import provisioner.virt '
        '(provisioner/api/servers.py:1 imports provisioner.virt.driver)',
        'wall: provisioner.db must not import provisioner.engine '
        '(provisioner/db/migration.py:1 imports provisioner.engine.persistence)',
        'wall: provisioner.virt must not import provisioner.db '
        '(provisioner/virt/driver.py:1 imports provisioner.db.api)',
    ]


def test_an_import_up_or_across_the_layers_fails_and_a_new_area_needs_a_place(
        checker, tmp_path):
    _package(tmp_path, {
        'flows/power.py': 'from provisioner.cmd import cli\n',
        'provisioner/cmd/cli.py': '',
        'provisioner/api/servers.py': 'def flow():\n'
                                      '    from provisioner.engine import runner\n',
        'provisioner/engine/runner.py': 'from provisioner.agents import l2\n',
        'provisioner/agents/l2.py': '',
    })
    assert checker.problems(str(tmp_path), known_cycles=()) == [
        'layer: provisioner.agents has no place in the layer order (add it to LAYERS)',
        'layer: flows must not import provisioner.cmd, of a layer above it '
        '(flows/power.py:1 imports provisioner.cmd.cli)',
        'layer: provisioner.api must not import provisioner.engine, of its own layer '
        '(provisioner/api/servers.py:2 imports provisioner.engine.runner)',
    ]
    assert checker.main([str(tmp_path)]) == 1


def test_a_clean_tree_passes(checker, tmp_path):
    _package(tmp_path, {
        'provisioner/engine/runner.py': 'import os\nfrom provisioner.compute import api\n',
        'provisioner/compute/api.py': 'from provisioner.conf import CONF\n',
        'provisioner/conf/__init__.py': '',
    })
    assert checker.problems(str(tmp_path), known_cycles=()) == []
    assert checker.main([str(tmp_path)]) == 0


def test_the_project_passes(checker):
    assert checker.problems(str(_TOOL.parents[1])) == []


def test_the_worker_is_walled_off_the_database_and_the_engine(checker, tmp_path):
    _package(tmp_path, {
        'provisioner/worker/endpoint.py': 'def f():\n'
                                          '    from provisioner.db import api\n',
        'provisioner/worker/service.py': 'from provisioner.engine import remote\n',
        'provisioner/db/api.py': '',
        'provisioner/engine/remote.py': '',
    })
    assert checker.problems(str(tmp_path), known_cycles=()) == [
        'wall: provisioner.worker must not import provisioner.db '
        '(provisioner/worker/endpoint.py:2 imports provisioner.db.api)',
        'layer: provisioner.worker must not import provisioner.engine, of a layer '
        'above it (provisioner/worker/service.py:1 imports provisioner.engine.remote)',
    ]


def test_a_cycle_between_modules_of_one_area_fails_and_is_named(checker, tmp_path):
    _package(tmp_path, {
        'provisioner/api/app.py': 'def build():\n'
                                  '    from provisioner.api.compute import service\n',
        'provisioner/api/compute/service.py': 'from provisioner.api import common\n',
        'provisioner/api/common.py': 'from provisioner.api.app import public_url\n',
        'provisioner/api/wsgi.py': 'import webob\n',
    })
    found = checker.problems(str(tmp_path), forbidden={}, allowed={}, known_cycles=())
    assert found == [
        'cycle inside provisioner.api: provisioner.api.app -> '
        'provisioner.api.compute.service -> provisioner.api.common -> provisioner.api.app',
        '    provisioner/api/app.py:2 imports provisioner.api.compute.service',
        '    provisioner/api/compute/service.py:1 imports provisioner.api.common',
        '    provisioner/api/common.py:1 imports provisioner.api.app',
    ]
    assert checker.main([str(tmp_path)]) == 1


def test_a_circle_larger_than_its_shortest_cycle_lists_every_module(checker, tmp_path):
    _package(tmp_path, {
        'provisioner/network/a.py': 'from provisioner.network import b\n'
                                    'from provisioner.network import c\n',
        'provisioner/network/b.py': 'from provisioner.network import a\n',
        'provisioner/network/c.py': 'from provisioner.network import a\n',
    })
    found = checker.module_cycles(str(tmp_path), known=())
    assert found[0] == ('cycle inside provisioner.network: provisioner.network.a -> '
                        'provisioner.network.b -> provisioner.network.a')
    assert found[-1] == ('    (a circle of 3 modules: provisioner.network.a, '
                         'provisioner.network.b, provisioner.network.c)')


def test_modules_of_one_area_importing_down_and_other_areas_in_a_line_pass(checker,
                                                                           tmp_path):
    _package(tmp_path, {
        # A package's __init__ assembles its modules, which import their siblings
        # and never the package: no cycle, though Python runs the __init__ first.
        'provisioner/api/compute/__init__.py': 'from provisioner.api.compute import '
                                               'servers\n',
        'provisioner/api/compute/servers.py': 'from provisioner.api.compute.views '
                                              'import servers as views\n'
                                              'from provisioner.api import wsgi\n',
        'provisioner/api/compute/views/servers.py': 'from provisioner.api import urls\n',
        'provisioner/api/urls.py': 'from provisioner.conf import CONF\n',
        'provisioner/api/wsgi.py': 'from provisioner import exception\n',
        'provisioner/exception.py': '',
        'provisioner/conf/__init__.py': '',
    })
    assert checker.module_cycles(str(tmp_path), known=()) == []
    assert checker.problems(str(tmp_path), known_cycles=()) == []


def test_a_known_module_cycle_edge_is_left_out(checker, tmp_path):
    _package(tmp_path, {
        'flows/boot.py': 'from flows.tasks import base\n',
        'flows/tasks/base.py': 'from flows import boot\n',
    })
    assert checker.module_cycles(str(tmp_path), known=()) != []
    assert checker.module_cycles(
        str(tmp_path), known=(('flows.tasks.base', 'flows.boot'),)) == []


_HOST_HALF = ('from flows.steps import base\n'
              'class DefineDomainOnHost(base.HostStep):\n'
              '    pass\n')


def test_a_host_half_reaching_the_database_fails_and_the_chain_is_named(
        checker, tmp_path):
    """Through provisioner modules, at module level or inside a function."""
    _package(tmp_path, {
        'flows/steps/base.py': 'class HostStep:\n    pass\n',
        'flows/steps/domain.py': _HOST_HALF + 'from provisioner.compute import power\n',
        'provisioner/compute/power.py': 'from provisioner.compute import actions\n',
        'provisioner/compute/actions.py': 'def finish():\n'
                                          '    from provisioner.db import api\n',
        'provisioner/db/api.py': '',
    })
    assert checker.problems(str(tmp_path), known_cycles=()) == [
        'database in a host half: flows.steps.domain -> provisioner.compute.power -> '
        'provisioner.compute.actions -> provisioner.db.api',
        '    flows/steps/domain.py:4 imports provisioner.compute.power',
        '    provisioner/compute/power.py:1 imports provisioner.compute.actions',
        '    provisioner/compute/actions.py:2 imports provisioner.db.api',
    ]
    assert checker.main([str(tmp_path)]) == 1


def test_a_host_half_through_a_class_of_its_module_or_a_package_it_runs(
        checker, tmp_path):
    _package(tmp_path, {
        'flows/steps/base.py': 'class HostStep:\n    pass\n',
        'flows/steps/attach.py': 'from flows.steps import base\n'
                                 'class _VolumeStep(base.HostStep):\n    pass\n'
                                 'class PlugVolumeOnHost(_VolumeStep):\n    pass\n',
        'flows/steps/__init__.py': 'import provisioner.db\n',
        'provisioner/db/__init__.py': '',
    })
    found = checker.problems(str(tmp_path), known_cycles=())
    assert found[:2] == [
        'database in a host half: flows.steps.attach -> flows.steps -> provisioner.db',
        '    flows/steps/attach.py runs its package flows.steps']
    # base.py holds no host half: HostStep itself is no step.
    assert not any('flows.steps.base ->' in line for line in found)


def test_engine_halves_alone_may_use_the_database(checker, tmp_path):
    _package(tmp_path, {
        'flows/steps/base.py': 'class HostStep:\n    pass\n',
        'flows/steps/domain.py': _HOST_HALF + 'from provisioner.compute import states\n',
        'provisioner/compute/states.py': 'RUNNING = "running"\n',
        'flows/steps/scheduling.py': 'from provisioner.db import api\n',
        'provisioner/db/api.py': '',
    })
    assert checker.problems(str(tmp_path), known_cycles=()) == []
