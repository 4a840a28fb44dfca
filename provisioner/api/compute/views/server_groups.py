"""Nova's server group view: 2.13 adds project_id and user_id; 2.64 shows ``policy``
and ``rules`` instead of ``policies`` and the always empty ``metadata``."""


def server_group(req, group, members):
    """``members``: the ids of the group's live servers."""
    view = {'id': group['id'], 'name': group['name']}
    if req.api_version >= (2, 64):
        per_host = group.get('max_server_per_host')
        view['policy'] = group['policy']
        view['rules'] = {} if per_host is None else {'max_server_per_host': per_host}
    else:
        view['policies'] = [group['policy']]
        view['metadata'] = {}
    view['members'] = members
    if req.api_version >= (2, 13):
        view['project_id'] = group['project_id']
        view['user_id'] = group.get('user_id')
    return view
