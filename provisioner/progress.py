"""What a progress reporter is told: light, so the REST client reports steps too.

provisioner.engine.listeners makes these from a running flow (TaskFlow); the REST
and RPC clients make them from the instance's events (provisioner.client.follow),
and must not import TaskFlow or the database to do so.
"""


class StepEvent:
    """What a progress reporter is told when a step starts or ends."""

    __slots__ = ('name', 'finished', 'result', 'duration', 'message')

    def __init__(self, name, finished, result=None, duration=None, message=None):
        self.name = name
        self.finished = finished
        self.result = result
        self.duration = duration
        self.message = message
