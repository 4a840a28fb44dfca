"""Identity administration over Keystone's v3 API: users, projects, role assignments.

The same functions as provisioner.identity.admin, returning what they return, so
the commands print the same in both modes. Names are looked up with ``?name=``;
role ids are their names (admin, member, reader).
"""

from provisioner.client.http import quote
from provisioner import exception

IDENTITY = 'identity'
DOMAIN_ID = 'default'


class RestIdentityAdmin:
    def __init__(self, session):
        self._session = session

    def _find(self, collection, kind, name):
        rows = self._session.get(IDENTITY, '/%s' % collection,
                                 {'name': name})[collection]
        for row in rows:
            if row['name'] == name:
                return row
        raise exception.NotFound(kind=kind, name=name)

    def create_project(self, name):
        project = self._session.post(IDENTITY, '/projects', {'project': {
            'name': name, 'domain_id': DOMAIN_ID, 'enabled': True}})['project']
        return {'id': project['id'], 'name': project['name']}

    def create_user(self, name, password):
        user = self._session.post(IDENTITY, '/users', {'user': {
            'name': name, 'password': password, 'domain_id': DOMAIN_ID,
            'enabled': True}})['user']
        return {'id': user['id'], 'name': user['name'],
                'enabled': user.get('enabled', True)}

    def _update_user(self, name, changes):
        user = self._find('users', 'User', name)
        user = self._session.patch(IDENTITY, '/users/%s' % quote(user['id']),
                                   {'user': changes})['user']
        return {'id': user['id'], 'name': user['name'], 'enabled': user['enabled']}

    def set_password(self, name, password):
        return self._update_user(name, {'password': password})

    def disable_user(self, name):
        return self._update_user(name, {'enabled': False})

    def add_role(self, user_name, project_name, role):
        user = self._find('users', 'User', user_name)
        project = self._find('projects', 'Project', project_name)
        self._session.put(IDENTITY, '/projects/%s/users/%s/roles/%s'
                          % (quote(project['id']), quote(user['id']), quote(role)))
        return {'user': user_name, 'project': project_name, 'role': role}
