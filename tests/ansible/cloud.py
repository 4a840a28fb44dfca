"""The provisioner-api all-in-one the playbooks and the SDK script run against.

tests/functional/api/conftest.py's ApiCloud (own state_path under /var/lib, libvirt
resource prefix, free loopback port), with two users: the bootstrapped admin and a
member of a project of its own, "demo", as in a small cloud. Nothing else is made
here: the playbooks and the SDK script create (and delete) every image, flavor,
network and server they use, through the API.
"""

from tests.functional.api import conftest as api_conftest
from tests import netutil

ADMIN_CLOUD = 'provisioner-admin'
DEMO_CLOUD = 'provisioner-demo'
DEMO = 'demo'


class AnsibleCloud(api_conftest.ApiCloud):
    """An all-in-one provisioner-api with an admin and a demo user."""

    def __init__(self, root, client_dir):
        super().__init__(root, netutil.free_cidr(), client_dir)
        self.client_dir = client_dir
        self.prepared = False

    def prepare(self):
        """Bootstrap the admin, start the API, make the demo project and its member,
        write the run's clouds.yaml (ADMIN_CLOUD, DEMO_CLOUD); its path."""
        self.cli('bootstrap', '--username', api_conftest.USER, '--password',
                 api_conftest.PASSWORD, '--project', api_conftest.PROJECT)
        self.start_api()
        project = self.create_project(DEMO)
        password = self.create_user(DEMO, project, ('member',))
        self.clouds_yaml = api_conftest.write_clouds_yaml(
            self.client_dir / 'clouds.yaml', self.url, {
                ADMIN_CLOUD: (api_conftest.USER, api_conftest.PASSWORD,
                              api_conftest.PROJECT),
                DEMO_CLOUD: (DEMO, password, DEMO)})
        self.prepared = True
        return self.clouds_yaml

    def left_behind(self):
        """Whatever the database holds beyond the two users and their projects."""
        if not self.prepared:
            return []
        users = (api_conftest.USER, DEMO)
        projects = (api_conftest.PROJECT, DEMO)
        return self.rows_left(projects=projects, users=users)
