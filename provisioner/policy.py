"""Policy enforcement with oslo.policy: every action is checked where it happens.

The API functions (ComputeAPI, catalog, identity admin) call ``authorize`` themselves,
so the CLI and the engine's RPC endpoint are covered alike. Defaults live in
provisioner.policies; ``[oslo_policy] policy_file`` (policy.yaml, found next to the
configuration files) overrides them.
"""

import threading

from provisioner.conf import CONF
from provisioner import exception

_lock = threading.Lock()
_enforcer = None


def get_enforcer():
    global _enforcer
    with _lock:
        if _enforcer is None:
            # oslo.policy costs ~0.2 s to import: only commands that authorize pay it.
            from oslo_policy import policy as oslo_policy

            from provisioner import policies
            enforcer = oslo_policy.Enforcer(CONF)
            enforcer.register_defaults(policies.list_rules())
            _enforcer = enforcer
        return _enforcer


def reset():
    """Forget the enforcer (tests change the configuration between cases)."""
    global _enforcer
    with _lock:
        _enforcer = None


def _credentials(context):
    return {'user_id': context.user_id, 'project_id': context.project_id,
            'roles': list(context.roles)}


def check(context, action, target=None):
    """Whether the policy allows ``action`` on ``target`` (default: own project)."""
    target = target if target is not None else {'project_id': context.project_id}
    return get_enforcer().authorize(action, target, _credentials(context))


def authorize(context, action, target=None):
    """Raise Forbidden unless the policy allows ``action`` on ``target``."""
    if not check(context, action, target):
        raise exception.Forbidden(
            reason='the policy does not allow %s for roles %s in project %s'
                   % (action, ', '.join(context.roles) or 'none', context.project_name))


def authorize_owned(context, action, project_id, kind, name):
    """Like authorize, for a resource of a project: another project's is 'not found'.

    A caller must not learn that another project's resource exists, so a refusal on
    a foreign target reads exactly like a lookup that found nothing.
    """
    if check(context, action, {'project_id': project_id}):
        return
    if project_id != context.project_id:
        raise exception.NotFound(kind=kind, name=name)
    authorize(context, action, {'project_id': project_id})
