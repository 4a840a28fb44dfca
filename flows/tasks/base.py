"""What every step shares: the fault point, cleanup reporting, and the host-step contract.

Host steps (the ``HostTask`` contract)
--------------------------------------
A step that changes the chosen host is two halves:

* the host half, a ``flows.host.base.HostStep`` in a ``flows/host/*_steps.py``
  module that imports no database: ``Payload``/``UndoPayload`` (frozen dataclasses,
  JSON on the wire), ``run(payload) -> JSON result`` and ``undo(payload, result)``;
* the engine half, a ``HostTask`` here in ``flows/tasks`` (the TaskFlow atom; its
  name and the flow shapes are resume keys), with ``step = <the HostStep class>``
  and these engine-side hooks, each optional:

  ``before_run(**args)``          what the database records before the host starts
                                  (a task_state);
  ``build_payload(**args)``       the step's ``Payload`` from the database and the flow
                                  arguments: only what the step needs; no secrets
                                  beyond it. Its signature IS the atom's requirements
                                  (default: ``(instance_id)`` -> ``InstancePayload``);
  ``record(result, **args)``      write what the database must remember of the host's
                                  result; returns the atom's result (default: result;
                                  a run's failed cleanups stay the result, whatever
                                  it returns);
  ``build_undo_payload(**args)``  the ``UndoPayload``; its signature is the revert's
                                  requirements (default: ``(instance_id)``);
  ``record_undo(**args)``         what the database forgets once the host undid.

``execute`` and ``revert`` are composed from these, never written by hand:
``execute = before_run; record(step.run(build_payload))`` and ``revert =
step.undo(build_undo_payload, result); record_undo``. All-in-one they run in-process;
distributed, ``provisioner.engine.remote`` runs the engine hooks on the engine and
sends only the payload to the host's worker (``provisioner.worker.rpcapi``). An
undo's failed cleanups come back as ``{CLEANUP_FAILED: [...]}``. The test-only fault
points are no part of a step: the engine installs them when configured
(``provisioner.engine.fault_points``).
"""

import collections
import functools
import inspect

from taskflow import task
from taskflow.types import sets

from flows import constants
from flows.host import base as host_base

# Shared with the engine-side steps: their cleanups report the same way.
driver = host_base.driver
undo = host_base.undo


def _hashable(value):
    """A key for an atom's requires/rebind/inject argument (TypeError: none)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        return ('dict', tuple(value.items()))
    return (type(value).__name__, tuple(value))


# (class, method, arguments) -> the argument mapping TaskFlow derived for them.
_ARG_MAPPINGS = {}


class ProvisionerTask(task.Task):
    """Base of every step: reports the cleanup errors of its revert as the revert's
    result."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if 'revert' in cls.__dict__:
            cls.revert = host_base.reporting_cleanup_failures(cls.__dict__['revert'])

    def _build_arg_mapping(self, executor, requires=None, rebind=None,
                           auto_extract=True, ignore_list=None):
        """TaskFlow's mapping of execute's or revert's arguments, once per class.

        TaskFlow derives it from the method's signature for every atom it builds
        (~0.2 ms each, two per atom: most of the cost of building a flow, which every
        run of a flow does). It depends only on the class's method and these
        arguments, so it is computed once and copied.
        """
        if getattr(executor, '__self__', None) is not self:  # not its own method
            return super()._build_arg_mapping(executor, requires, rebind,
                                              auto_extract, ignore_list)
        try:
            key = (type(self), executor.__func__,
                   _hashable(requires), _hashable(rebind), auto_extract,
                   _hashable(ignore_list), _hashable(sorted(self.inject or ())))
            cached = _ARG_MAPPINGS.get(key)
        except TypeError:  # an unhashable argument: no caching
            return super()._build_arg_mapping(executor, requires, rebind,
                                              auto_extract, ignore_list)
        if cached is None:
            cached = super()._build_arg_mapping(executor, requires, rebind,
                                                auto_extract, ignore_list)
            _ARG_MAPPINGS[key] = cached
        mapping, required, optional = cached
        return (collections.OrderedDict(mapping), sets.OrderedSet(required),
                sets.OrderedSet(optional))


def _composed(body, hook, extra=()):
    """A method running body with the parameters of hook (plus extra, keyword-only):
    TaskFlow reads an atom's requirements from the signatures of its execute and
    revert, and tests call them as usual."""
    params = list(inspect.signature(hook).parameters.values())
    signature = inspect.Signature(
        params + [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None)
                  for name in extra]
        + [inspect.Parameter('kwargs', inspect.Parameter.VAR_KEYWORD)])

    def method(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments['self']
        arguments.update(arguments.pop('kwargs'))
        return body(self, **arguments)

    method.__signature__ = signature
    method.__name__ = method.__qualname__ = body.__name__.lstrip('_')
    return method


def _execute(self, **arguments):
    self.before_run(**arguments)
    result = self.step().run(self.build_payload(**arguments))
    return self.record(result, **arguments)


def _revert(self, result=None, flow_failures=None, **arguments):
    outcome = self.step().undo(self.build_undo_payload(**arguments), result)
    self.record_undo(**arguments)
    return outcome


def _keeping_cleanup_failures(record):
    """Wrap a record hook so a run's {CLEANUP_FAILED: [...]} stays the atom's result:
    the engine's listener records those leftovers."""

    @functools.wraps(record)
    def wrapper(self, result, **arguments):
        recorded = record(self, result, **arguments)
        failed = isinstance(result, dict) and result.get(constants.CLEANUP_FAILED)
        return result if failed else recorded

    return wrapper


class HostTask(ProvisionerTask):
    """The engine half of a step that changes the chosen host (see the module doc)."""

    runs_on_host = True
    # A cleanup (delete flow) may run later, when its host's worker is back; a boot
    # step may not.
    deferrable = False
    step = None  # the HostStep class

    def __init_subclass__(cls, **kwargs):
        if 'record' in cls.__dict__:
            cls.record = _keeping_cleanup_failures(cls.__dict__['record'])
        if cls.step is not None:
            cls.execute = _composed(_execute, cls.build_payload)
            if cls.step.has_undo():
                cls.revert = _composed(_revert, cls.build_undo_payload,
                                       extra=('result', 'flow_failures'))
        super().__init_subclass__(**kwargs)

    def before_run(self, **arguments):
        pass

    def build_payload(self, instance_id):
        return self.step.Payload(instance_id)

    def record(self, result, **arguments):
        return result

    def build_undo_payload(self, instance_id):
        return self.step.UndoPayload(instance_id)

    def record_undo(self, **arguments):
        pass
