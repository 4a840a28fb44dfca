"""Nova's server group view at 2.1 - 2.12 (project_id and user_id join it at 2.13)."""


def server_group(group, members):
    """``members``: the ids of the group's live servers."""
    return {'id': group['id'], 'name': group['name'], 'policies': [group['policy']],
            'members': members, 'metadata': {}}
