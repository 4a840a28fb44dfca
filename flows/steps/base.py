"""What every step shares: the host-step contract, payloads on the wire, cleanup
reporting, the records port.

Host steps
----------
A step that changes the chosen host has two halves, side by side in its resource's
module (``flows.steps.domain`` holds every domain step):

* the host half, a ``HostStep`` registered under a stable ``name``
  (``'domain.define'``; ``flows.steps.registry``): ``Payload``/``UndoPayload``
  (frozen dataclasses, JSON on the wire), ``run(payload) -> JSON result`` and
  ``undo(payload, result)``. It runs on the hypervisor host and never reads the
  database;
* the engine half, a ``HostTask`` (the TaskFlow atom; its name and the flow shapes
  are resume keys), with ``step = <its HostStep>`` and these engine-side hooks, each
  optional:

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
sends only the payload and the step's name to the host's worker
(``provisioner.worker.rpcapi``). An undo's failed cleanups come back as
``{CLEANUP_FAILED: [...]}``. The test-only fault points are no part of a step: the
engine installs them when configured (``provisioner.engine.fault_points``).

The records port
----------------
A worker imports a host half's module to run it, and a worker has no database
(``provisioner.worker.no_database``). So a module holding a host half imports
nothing that reaches ``provisioner.db`` (``tools/check_import_graph.py`` checks it):
its steps read and write the database through ``self.records``, an object the
engine attaches to every atom when it builds the engine
(``provisioner.engine.step_records``; a test calling ``execute`` directly gives it
with ``step_records.with_records(task)``). Engine-only steps in modules without a
host half (``lifecycle``, ``quota``, ``scheduling``, ``reschedule``) import the
database as they need.
"""

import collections
import contextvars
import dataclasses
import functools
import inspect
import logging

from taskflow import task
from taskflow.types import sets

from provisioner import exception
from provisioner import virt

from flows import constants

LOG = logging.getLogger(__name__)


def driver():
    return virt.get_driver()


# -- cleanup reporting: an undo's failures are its result, never raised -------------

# The cleanup errors of the revert running in this thread (None outside a revert).
_cleanup_failures = contextvars.ContextVar('cleanup_failures', default=None)


def undo(what, func, *args):
    """Run one cleanup action; swallow its error so the others still run.

    The error goes to the log (WARNING, with its traceback: the log file, not the
    user's terminal) and into the revert's result, which the step's event and the
    instance's fault show.
    """
    try:
        func(*args)
    except Exception as exc:
        LOG.warning('Cleanup failed: %s: %s', what, exc, exc_info=True)
        failures = _cleanup_failures.get()
        if failures is not None:
            failures.append('%s: %s' % (what, exc))


def reporting_cleanup_failures(revert):
    """Wrap a revert so it returns {CLEANUP_FAILED: [...]} when an undo() failed."""

    @functools.wraps(revert)
    def wrapper(*args, **kwargs):
        token = _cleanup_failures.set([])
        try:
            result = revert(*args, **kwargs)
            failed = _cleanup_failures.get()
        finally:
            _cleanup_failures.reset(token)
        return {constants.CLEANUP_FAILED: failed} if failed else result

    return wrapper


def describe_failures(flow_failures, what='Boot'):
    """One line naming the step that failed and why, for the instance's fault."""
    if not flow_failures:
        return '%s failed for an unknown reason.' % what
    step, failure = next(iter(flow_failures.items()))
    if failure.check(exception.ProvisionerError):
        return '%s: %s' % (step, failure.exception_str)
    return '%s: %s: %s' % (step, next(iter(failure), 'Error'), failure.exception_str)


# -- the host half ------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class InstancePayload:
    """The payload of a step that needs nothing but the instance's id."""

    instance_id: str


def to_wire(payload):
    """A payload as the JSON object that crosses the wire (and the deferred-step row)."""
    return dataclasses.asdict(payload)


def from_wire(payload_type, data):
    """The typed payload back from its JSON object; unknown or missing fields fail."""
    return payload_type(**data)


class UnknownStep(exception.ProvisionerError):
    msg_fmt = 'Refusing step %(step)s: not a registered host step of provisioner.'


# Registered name -> HostStep; filled as the step modules define them, read through
# flows.steps.registry (which imports every module holding a host half).
REGISTERED = {}


class HostStep:
    """The host half of a host step: ``run`` it, or ``undo`` what a run made.

    Subclasses set ``name`` (the step's registered name: what crosses the wire and
    what a deferred step's row keeps; never rename one), ``Payload`` (and
    ``UndoPayload`` when undoing needs more or less than the instance id), and define
    ``run`` and, when a run leaves something to take back, ``undo``. Both must be
    idempotent: the engine sends a step again when its first message went
    unanswered, and replays deferred undos late. ``undo`` reports the cleanups it
    could not do through ``undo()`` above; so does a ``run`` that cleans up (a delete
    step): its result is then ``{CLEANUP_FAILED: [...]}``, which the engine records
    as leftovers.
    """

    name = None
    Payload = InstancePayload
    UndoPayload = InstancePayload

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for method in ('run', 'undo'):
            if method in cls.__dict__:
                setattr(cls, method, reporting_cleanup_failures(cls.__dict__[method]))
        name = cls.__dict__.get('name')
        if name is not None:
            if name in REGISTERED:
                raise TypeError('Host steps %s and %s are both named %r'
                                % (REGISTERED[name].__qualname__, cls.__qualname__, name))
            REGISTERED[name] = cls

    @classmethod
    def has_undo(cls):
        return cls.undo is not HostStep.undo

    def run(self, payload):
        """Do the step on this host; return a JSON-serialisable result."""
        raise NotImplementedError

    def undo(self, payload, result):
        """Take back what ``run`` made; ``result`` is its result or its Failure."""


# -- the engine half ----------------------------------------------------------------

def _hashable(value):
    """A key for an atom's requires/rebind/inject argument (TypeError: none)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        return ('dict', tuple(value.items()))
    return (type(value).__name__, tuple(value))


# (class, method, arguments) -> the argument mapping TaskFlow derived for them.
_ARG_MAPPINGS = {}


class _NoRecords:
    """``records`` of a step the engine has not attached its port to."""

    def __getattr__(self, name):
        if name.startswith('__'):  # what Python itself looks up (abc, copy, pickle)
            raise AttributeError(name)
        raise RuntimeError('This step has no records port: the engine attaches one '
                           'when it builds the engine (a test: '
                           'provisioner.engine.step_records.with_records(task)).')


class ProvisionerTask(task.Task):
    """Base of every step: reports the cleanup errors of its revert as the revert's
    result; reaches the database through ``records`` (see the module doc)."""

    records = _NoRecords()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if 'revert' in cls.__dict__:
            cls.revert = reporting_cleanup_failures(cls.__dict__['revert'])

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


# Registered name of a host step -> its engine half (a deferred step's replay).
ENGINE_HALVES = {}


def _register_engine_half(cls):
    name = cls.step.name
    if name is None:
        raise TypeError('%s.step %s has no registered name'
                        % (cls.__qualname__, cls.step.__qualname__))
    if ENGINE_HALVES.setdefault(name, cls) is not cls:
        raise TypeError('Host step %r has two engine halves: %s and %s'
                        % (name, ENGINE_HALVES[name].__qualname__, cls.__qualname__))


class HostTask(ProvisionerTask):
    """The engine half of a step that changes the chosen host (see the module doc)."""

    runs_on_host = True
    # The store key naming the host whose worker runs it (a migration's steps run
    # on its source or its destination).
    host_key = constants.HOST
    # A cleanup (delete flow) may run later, when its host's worker is back; a boot
    # step may not.
    deferrable = False
    step = None  # the HostStep class

    def __init_subclass__(cls, **kwargs):
        if 'record' in cls.__dict__:
            cls.record = _keeping_cleanup_failures(cls.__dict__['record'])
        if cls.__dict__.get('step') is not None:
            _register_engine_half(cls)
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
