"""Fault points are the engine's, installed only when configured; no step carries one."""

import time

import pytest
from taskflow import engines
from taskflow.patterns import linear_flow

from provisioner.engine import fault_points
from provisioner import exception

from flows.steps import base


RAN = []


class _Touch(base.ProvisionerTask):
    default_provides = 'touched'

    def execute(self):
        RAN.append(self.name)
        return 'touched'


def _engine():
    return engines.load(linear_flow.Flow('f').add(_Touch('touch')), engine='serial')


def test_a_step_called_alone_has_no_fault_point(conf):
    conf.set_override('fail_after_step', ['touch'], 'fault_injection')
    assert _Touch('touch').execute() == 'touched'


def test_not_configured_the_engine_is_left_as_it_is(conf):
    engine = _engine()
    executor = engine._task_executor
    assert fault_points.install(engine)._task_executor is executor
    engine.run()
    assert engine.storage.fetch('touched') == 'touched'


def test_configured_the_point_fails_the_step_after_it_ran(conf):
    conf.set_override('fail_after_step', ['touch'], 'fault_injection')
    engine = fault_points.install(_engine())
    del RAN[:]
    with pytest.raises(exception.InjectedFault):
        engine.run()
    assert RAN == ['touch']  # the step ran, then its point failed it


def test_a_pause_point_holds_the_flow_after_the_step_then_lets_it_finish(conf):
    conf.set_override('pause_after_step', ['touch'], 'fault_injection')
    conf.set_override('pause_seconds', 0.3, 'fault_injection')
    engine = fault_points.install(_engine())
    started = time.monotonic()
    engine.run()
    assert time.monotonic() - started >= 0.3
    assert engine.storage.fetch('touched') == 'touched'
