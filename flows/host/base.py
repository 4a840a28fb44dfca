"""What every host-side step shares: the payload codec, the driver, cleanup reporting.

A ``HostStep`` is the half of a host step that runs on the hypervisor host. It gets
one typed payload (a frozen dataclass, ``Payload`` to run, ``UndoPayload`` to undo)
built by the engine, and returns a JSON-serialisable result; it never reads the
database. ``flows.tasks.base.HostTask`` is the engine half that builds the payload
and records the result.
"""

import contextvars
import dataclasses
import functools
import logging

from oslo_utils import importutils

from provisioner import exception
from provisioner import virt

from flows import constants

LOG = logging.getLogger(__name__)

_STEP_PACKAGE = 'flows.host.'


class UnknownStep(exception.ProvisionerError):
    msg_fmt = 'Refusing step class %(step)s: not a host-side step of provisioner.'


def driver():
    return virt.get_driver()


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


class HostStep:
    """The host half of a host step: ``run`` it, or ``undo`` what a run made.

    Subclasses set ``Payload`` (and ``UndoPayload`` when undoing needs more or less
    than the instance id), and define ``run`` and, when a run leaves something to
    take back, ``undo``. Both must be idempotent: the engine sends a step again when
    its first message went unanswered, and replays deferred undos late.
    ``undo`` reports the cleanups it could not do through ``undo()`` above; so does a
    ``run`` that cleans up (a delete step): its result is then ``{CLEANUP_FAILED:
    [...]}``, which the engine records as leftovers.
    """

    Payload = InstancePayload
    UndoPayload = InstancePayload

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for method in ('run', 'undo'):
            if method in cls.__dict__:
                setattr(cls, method, reporting_cleanup_failures(cls.__dict__[method]))

    @classmethod
    def path(cls):
        return '%s.%s' % (cls.__module__, cls.__qualname__)

    @classmethod
    def has_undo(cls):
        return cls.undo is not HostStep.undo

    def run(self, payload):
        """Do the step on this host; return a JSON-serialisable result."""
        raise NotImplementedError

    def undo(self, payload, result):
        """Take back what ``run`` made; ``result`` is its result or its Failure."""


@functools.lru_cache(maxsize=128)
def step_class(path):
    """The HostStep class a message names; anything else is refused.

    A message names a class, and a host must never import whatever a message names.
    """
    if not path.startswith(_STEP_PACKAGE):
        raise UnknownStep(step=path)
    try:
        cls = importutils.import_class(path)
    except ImportError:
        raise UnknownStep(step=path)
    if not (isinstance(cls, type) and issubclass(cls, HostStep)):
        raise UnknownStep(step=path)
    return cls
