"""The process's dispatcher (provisioner.engine.dispatch), set once by provisioner-api.

Handlers hand accepted flows to ``get()``; tests set their own.
"""

_dispatcher = None


def set(dispatcher):  # noqa: A001 - the module is the namespace: dispatcher.set()
    global _dispatcher
    _dispatcher = dispatcher


def get():
    if _dispatcher is None:
        raise RuntimeError('provisioner-api has no dispatcher: call dispatcher.set()')
    return _dispatcher
