"""A worker has no database: any attempt to reach one fails loudly, at once.

provisioner-worker imports nothing of ``provisioner.db`` when it starts
(tests/unit/host/test_worker_rpc.py checks it). Without this guard an import added
later inside a function would go unnoticed: with no ``[database]`` section the
database layer falls back to a SQLite file under the host's ``state_path``, so a
host step would quietly read and write a database of its own instead of failing.
``forbid`` makes that import raise ``ImportError`` naming the module, so the step
fails with the cause and every distributed test (real workers) catches it.
"""

import importlib.abc
import logging
import sys

LOG = logging.getLogger(__name__)

FORBIDDEN = ('provisioner.db',)


def _forbidden(name):
    return any(name == root or name.startswith(root + '.') for root in FORBIDDEN)


class DatabaseImportBlocker(importlib.abc.MetaPathFinder):
    """A meta path finder refusing the database layer's modules."""

    def find_spec(self, fullname, path=None, target=None):
        if _forbidden(fullname):
            raise ImportError('provisioner-worker has no database: refusing to import '
                              '%s (a host step gets what it needs in its payload; '
                              'the engine reads and writes the database)' % fullname,
                              name=fullname)
        return None


def forbid(conf):
    """Refuse the database layer in this process from now on.

    Raises RuntimeError if it is already imported (the worker would hold it), and
    warns if the config still has a ``[database]`` section: a hypervisor host should
    hold no database credentials.
    """
    loaded = sorted(name for name in sys.modules if _forbidden(name))
    if loaded:
        raise RuntimeError('provisioner-worker must not import the database layer, '
                           'but %s is loaded' % ', '.join(loaded))
    if not any(isinstance(f, DatabaseImportBlocker) for f in sys.meta_path):
        sys.meta_path.insert(0, DatabaseImportBlocker())
    if 'database' in conf.list_all_sections():
        LOG.warning('This host\'s configuration has a [database] section, which '
                    'provisioner-worker never uses; remove it (a hypervisor host '
                    'should hold no database credentials).')
