"""``provisioner list`` all-in-one, read with the standard library's sqlite3.

The full path (ComputeAPI.list) imports the ORM, the engine and TaskFlow: over half a
second for a command that reads a few rows (issue 12: < 0.3 s). This path reads the
same rows with sqlite3 and answers only when everything is already in place; in any
other case it returns None and the command takes the full path, which migrates,
authenticates, and reports errors as every command does:

- all-in-one (a distributed deployment's CLI never gets here: provisioner.cmd.cli
  sends it to the REST API), the SQLite database exists and is at the schema
  revision this code expects;
- a cached token (the full path authenticates and caches one) that passes the checks
  of ``identity.service.validate``: authentic, unexpired, its user enabled and not
  revoked since, a role in its project;
- the table format (``--format json`` describes each instance in full).

The policy: without a policy file, the defaults of the two rules a list checks
(DEFAULT_ALLOWED_ROLES); with one, provisioner.policy (oslo.policy) as everywhere.
A refusal takes the full path, which reports it as every command does.
tests/unit/test_cli_startup.py keeps this output equal to the full path's.
"""

import collections
import contextlib
import datetime
import sqlite3

from provisioner.cmd import commands
from provisioner.cmd import output
from provisioner.cmd import token_cache
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import basics
from provisioner import exception
from provisioner.identity import fernet
from provisioner import policy

# What provisioner.policy reads of a caller (identity.service.RequestContext's fields).
Caller = collections.namedtuple('Caller', 'user_id user_name project_id project_name roles')


# The defaults of the rules a list checks (provisioner.policies.instances), for a
# caller listing from its own project: the roles that pass. oslo.policy costs ~0.15 s
# to import and load (requests, hundreds of regular expressions), half the budget, so
# it is loaded only when a policy file may override them. tests/unit/test_cli_startup
# checks these against oslo.policy for every set of roles.
DEFAULT_ALLOWED_ROLES = {'instance:list': frozenset({'admin', 'member', 'reader'}),
                         'instance:list:all_projects': frozenset({'admin'})}


def _probe(args):
    """The few options this path needs that other libraries own, read as CONF read them.

    oslo.policy owns [oslo_policy]: registering its options would import it, so a
    throwaway ConfigOpts parses what CONF parsed (cli._load_config's arguments, the
    same default files and directories, the environment) for these options only.
    """
    from oslo_config import cfg
    probe = cfg.ConfigOpts()
    # oslo.policy's own defaults (provisioner sets none of its own).
    probe.register_opts([cfg.StrOpt('policy_file', default='policy.yaml'),
                         cfg.MultiStrOpt('policy_dirs', default=['policy.d'])],
                        group='oslo_policy')
    config_args = []
    for path in getattr(args, 'config_file', []):
        config_args += ['--config-file', path]
    probe(config_args, project='provisioner')
    return probe


def _policy_file_in_effect(probe):
    """Whether a policy file or directory may override the defaults (found as
    oslo.policy finds them: ConfigOpts.find_file, next to the configuration)."""
    names = [probe.oslo_policy.policy_file] + list(probe.oslo_policy.policy_dirs)
    return any(probe.find_file(name) for name in names)


def _allowed(caller, action, use_defaults):
    if use_defaults:
        return bool(DEFAULT_ALLOWED_ROLES[action] & set(caller.roles))
    return policy.check(caller, action)


def _database_path():
    url = basics.database_url()
    prefix = 'sqlite:///'
    if not url.startswith(prefix) or url == prefix + ':memory:' or '?' in url:
        return None
    return url[len(prefix):]


@contextlib.contextmanager
def _read_only(path):
    # mode=ro: a missing database is not created here (the full path makes it).
    conn = sqlite3.connect('file:%s?mode=ro' % path, uri=True,
                           timeout=CONF.database.sqlite_busy_timeout)
    try:
        yield conn
    finally:
        conn.close()


def _epoch(text):
    return datetime.datetime.fromisoformat(text).replace(
        tzinfo=datetime.timezone.utc).timestamp()


def _caller(conn, token):
    """identity.service.validate's checks on the database; None when one fails."""
    try:
        user_id, project_id, issued_at, _expires_at = fernet.decode(token)
    except exception.NotAuthenticated:
        return None
    user = conn.execute('SELECT name, enabled, tokens_revoked_at FROM users WHERE id = ?',
                        (user_id,)).fetchone()
    project = conn.execute('SELECT name FROM projects WHERE id = ?',
                           (project_id,)).fetchone()
    if user is None or project is None or not user[1]:
        return None
    if user[2] and issued_at <= _epoch(user[2]):
        return None
    if conn.execute('SELECT 1 FROM revoked_tokens WHERE audit_id = ?',
                    (fernet.audit_id(token),)).fetchone():
        return None
    roles = tuple(sorted(role for role, in conn.execute(
        'SELECT role FROM role_assignments WHERE user_id = ? AND project_id = ?',
        (user_id, project_id))))
    if not roles:
        return None
    return Caller(user_id, user[0], project_id, project[0], roles)


def _instances(conn, project_id):
    """ComputeAPI.list's rows (table columns only), oldest first; None: every project."""
    where, params = 'i.vm_state != ?', [states.DELETED]
    if project_id is not None:
        where += ' AND i.project_id = ?'
        params.append(project_id)
    rows = {}
    for row in conn.execute('SELECT i.id, i.name, i.vm_state, i.task_state, '
                            'i.power_state, i.host FROM instances i WHERE %s '
                            'ORDER BY i.created_at' % where, params):
        rows[row[0]] = dict(zip(commands.INSTANCE_COLUMNS[:6], row), addresses=[])
    # The ports of those instances on a network that exists (ipam.ports_for's join).
    for instance_id, ip in conn.execute(
            'SELECT p.instance_id, p.ip FROM ports p JOIN networks n ON n.id = '
            'p.network_id JOIN instances i ON i.id = p.instance_id WHERE %s '
            'ORDER BY p.created_at' % where, params):
        rows[instance_id]['addresses'].append(ip)
    return list(rows.values())


def list_instances(args):
    """The list as a table, or None to take the full path (see the module's doc)."""
    if args.format != 'table' or getattr(args, 'os_token', None):
        return None
    path = _database_path()
    if path is None:
        return None
    probe = _probe(args)
    if not (args.os_username and args.os_password and args.os_project_name):
        return None  # the full path says which are missing
    token = token_cache.cached_token(args.os_username, args.os_password,
                                     args.os_project_name)
    if token is None:
        return None
    try:
        with _read_only(path) as conn:
            revision = conn.execute('SELECT version_num FROM %s'
                                    % basics.VERSION_TABLE).fetchone()
            if revision is None or revision[0] != basics.SCHEMA_HEAD:
                return None
            caller = _caller(conn, token)
            if caller is None:
                return None
            defaults = not _policy_file_in_effect(probe)
            if not all(_allowed(caller, action, defaults) for action in (
                    ['instance:list', 'instance:list:all_projects'] if args.all_projects
                    else ['instance:list'])):
                return None  # the full path refuses it, in the usual words
            rows = _instances(conn, None if args.all_projects else caller.project_id)
    except sqlite3.Error:
        return None  # e.g. no database yet, or an older schema: the full path
    output.emit(rows, 'table', commands.INSTANCE_COLUMNS)
    return 0
