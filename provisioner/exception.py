"""Exceptions a user or operator can meet, each with a message that says what to do.

Every error that reaches the CLI is a ProvisionerError: the CLI prints its message on one
line and exits non-zero. ``reschedulable`` marks spawn failures that another host might
not have; bad requests and bad images are never retried elsewhere.
"""


class ProvisionerError(Exception):
    """Base of every error the CLI reports as one line."""

    msg_fmt = "An unknown error occurred."
    exit_code = 1
    reschedulable = False

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            message = self.msg_fmt % kwargs if kwargs else self.msg_fmt
        super().__init__(message)

    @property
    def message(self):
        return str(self)


class Invalid(ProvisionerError):
    msg_fmt = "Invalid request: %(reason)s"
    exit_code = 2


class InvalidVolume(Invalid):
    """Cinder's (and Nova's) 400 for a volume in the wrong state."""

    msg_fmt = 'Invalid volume: %(reason)s'


class InvalidSnapshot(Invalid):
    """Cinder's 400 for a snapshot in the wrong state."""

    msg_fmt = 'Invalid snapshot: %(reason)s'


class RootVolumeDetach(Invalid):
    """Nova's 400 for detaching the volume a server boots from."""

    msg_fmt = 'Cannot detach a root device volume'


class NotFound(ProvisionerError):
    msg_fmt = "%(kind)s %(name)s not found."
    exit_code = 3


class Conflict(ProvisionerError):
    msg_fmt = "%(reason)s"
    exit_code = 4


class NotAuthenticated(ProvisionerError):
    msg_fmt = "Authentication failed: %(reason)s"
    exit_code = 5


class Forbidden(ProvisionerError):
    msg_fmt = "Not allowed: %(reason)s"
    exit_code = 6


class HypervisorUnavailable(ProvisionerError):
    msg_fmt = ("Cannot reach the hypervisor at %(uri)s: %(reason)s. "
               "Is libvirtd running? (start it with 'libvirtd -d')")


class HypervisorError(ProvisionerError):
    """A libvirt call failed; another host may succeed."""

    msg_fmt = "Hypervisor error: %(reason)s"
    reschedulable = True


class ImageInvalid(ProvisionerError):
    msg_fmt = "Image %(image)s is unusable: %(reason)s"


class NoValidHost(ProvisionerError):
    msg_fmt = "No valid host was found: %(reason)s"


class InjectedFault(ProvisionerError):
    """Raised by a test-only fault point (see provisioner.fault_injection)."""

    msg_fmt = "Injected fault at step %(step)s"
