"""An audit's findings: plain data, the same on the engine and on a worker."""

import dataclasses

ORPHAN, MISSING = 'orphan', 'missing'


@dataclasses.dataclass
class Finding:
    problem: str     # ORPHAN or MISSING
    kind: str
    name: str
    owner: str
    host: str
    reason: str
    resource: dict | None = None  # the inventory's Resource (orphans)
    past_grace: bool = False      # an orphan older than the grace period
    recorded: bool = False        # an open leftover: a cleanup already meant it gone
    removed: bool = False
    error: str | None = None

    def to_dict(self):
        return dataclasses.asdict(self)

    def removable(self, reap=True):
        """Whether to remove it: a recorded leftover always, another orphan once
        past its grace period if ``reap``."""
        return self.problem == ORPHAN and (self.recorded or (reap and self.past_grace))


def to_remove(findings, reap=True):
    """The inventory entries (dicts) of the findings to remove."""
    return [f.resource for f in findings if f.removable(reap)]


def from_dicts(dicts):
    return [Finding(**d) for d in dicts]
