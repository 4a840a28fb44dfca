"""tempest.conf and the pre-provisioned accounts file for one seeded deployment.

Features are on exactly for what provisioner has. Each one turned off says why: a
feature provisioner does not have (the API answers 501 or 404), or something this
machine lacks. Validation (SSH into guests) is off: the host never initiates traffic
to a guest (guests report on their serial consoles instead).
"""

# What provisioner-api serves (provisioner/api/compute/versions.py MAX_VERSION,
# provisioner/api/volume.py VERSION); tempest skips tests needing more.
COMPUTE_MICROVERSIONS = ('2.1', '2.90')
VOLUME_MICROVERSIONS = ('3.0', '3.0')
# provisioner/api/network/views.py EXTENSIONS, and standard-attr-description:
# networks, subnets and ports keep a description, although GET /v2.0/extensions does
# not say so.
NETWORK_EXTENSIONS = ('quotas', 'quota_details', 'net-mtu', 'external-net',
                      'security-group', 'router', 'subnet_allocation',
                      'default-subnetpools', 'standard-attr-description',
                      'extraroute', 'extraroute-atomic', 'ext-gw-mode',
                      'subnet-external-network')
# provisioner/scheduler/filters.py, the filters tempest knows by name.
SCHEDULER_FILTERS = ('AvailabilityZoneFilter', 'ComputeFilter', 'RamFilter',
                     'DiskFilter', 'ImagePropertiesFilter',
                     'ServerGroupAffinityFilter', 'ServerGroupAntiAffinityFilter')
# tempest's defaults for both are far longer than a boot here takes (seconds).
BUILD_TIMEOUT = 300

_TEMPLATE = """\
# Written by tests/tempest/conf.py for one private provisioner-api deployment.
[DEFAULT]
log_file = tempest.log
debug = true

[oslo_concurrency]
# The run's own (tempest's default is one under /tmp that outlives it).
lock_path = {lock_path}

[auth]
use_dynamic_credentials = {dynamic}
test_accounts_file = {accounts_file}
default_credentials_domain_name = Default
admin_username = {admin_user}
admin_password = {admin_password}
admin_project_name = {admin_project}
admin_domain_name = Default
# A project network per dynamic project needs routers: provisioner's guest networks
# are isolated (no routers); servers use the shared network below.
create_isolated_networks = false

[identity]
uri_v3 = {url}/identity/v3
auth_version = v3
region = RegionOne
v3_endpoint_type = public
admin_role = admin
default_domain_id = default
user_unique_last_password_count = 0
user_minimum_password_age = 0
user_lockout_failure_attempts = 0
user_lockout_duration = 0

[identity-feature-enabled]
api_v3 = true
# The extensions provisioner's identity serves: EC2 credentials and inherited
# role assignments (endpoint groups, OAuth 1 consumers and domain configuration are
# served too; tempest tests them without asking). Security compliance: a user
# changes their own password (POST /v3/users/{{id}}/password), which ends their
# tokens; provisioner keeps no password history, no minimum password age and no
# lockout: [identity] says so (0: off, Keystone's defaults). Off: provisioner's
# identity has no trusts, no access rules of application credentials, one SQL user
# source (a domain's configuration is kept but picks no driver).
trust = false
access_rules = false
api_extensions = OS-EC2,OS-INHERIT
domain_specific_drivers = false
security_compliance = true

[service_available]
nova = true
glance = true
neutron = true
cinder = true
# provisioner has no object store and no dashboard.
swift = false
horizon = false

[enforce_scope]
# provisioner's policy checks roles, not the token's scope (system-scoped tokens
# exist for the identity API only; there is no domain scope).
nova = false
neutron = false
glance = false
cinder = false
keystone = false
placement = false

[compute]
image_ref = {image}
image_ref_alt = {image_alt}
flavor_ref = {flavor}
flavor_ref_alt = {flavor_alt}
fixed_network_name = {network_name}
region = RegionOne
endpoint_type = public
min_microversion = {compute_min}
max_microversion = {compute_max}
build_timeout = {build_timeout}
build_interval = 1
# All-in-one: one host.
min_compute_nodes = 1

[compute-feature-enabled]
console_output = true
config_drive = true
scheduler_enabled_filters = {filters}
nova_policy_roles = admin,member,reader
# Off, features provisioner does not have: disk config (no resize or rebuild to
# honour it), changing a guest's password (no guest agent), resize, cold and live
# migration, pause, suspend, shelve, rescue, interface hot-plug, the VNC, SPICE
# and serial consoles, personality files, swap and multi-attach of volumes,
# encrypted volumes, unified limits.
disk_config = false
change_password = false
resize = false
cold_migration = false
live_migration = false
pause = false
suspend = false
shelve = false
rescue = false
# On: server snapshots (createImage) into images of the image API.
snapshot = true
interface_attach = false
vnc_console = false
spice_console = false
serial_console = false
personality = false
swap_volume = false
volume_multiattach = false
attach_encrypted_volume = false
unified_limits = false
# Off: POST /servers answers no adminPass (guests get keys through the config drive).
enable_instance_password = false
# Off: no metadata service; guests read the config drive.
metadata_service = false
# Off: volumes are attached as virtio disks only.
ide_bus = false

[image]
region = RegionOne
endpoint_type = public
build_timeout = {build_timeout}
# Glance's formats, all of which provisioner's image store keeps (a server boots
# qcow2, raw, aki and ari in a bare container). raw first: tempest uploads random
# bytes as the first formats, which a qcow2 upload refuses (no qcow2 header).
container_formats = bare,ami,ari,aki,ovf,ova,docker,compressed
disk_formats = raw,aki,ari,vhd,vhdx,vmdk,qcow2,vdi,iso,ploop,ami
# Off: no image cache on the image API side.
image_caching_enabled = false

[image-feature-enabled]
api_v2 = true
os_glance_reserved = true
do_secure_hash = true
# Off: an upload's bytes are checked only where a boot reads them as the format says
# (a qcow2's header, raw not being qcow2), so bytes of no real format upload as the
# other formats, as tempest's listing tests need.
image_format_enforcement = false
# Off, features provisioner does not have: interoperable image import
# (POST .../import, staging), image locations, conversion on import, the http store
# and store weights.
import_image = false
manage_locations = false
image_conversion = false
http_store_enabled = false
store_weight_enabled = false

[network]
region = RegionOne
endpoint_type = public
project_network_cidr = {project_cidr}
project_network_mask_bits = 28
# The external network tests/tempest/cloud.py makes (routers' gateways, floating
# IPs: the API and its records). Off: guest networks are not reachable from where
# tempest runs (no SSH into guests), no physical network to share.
project_networks_reachable = false
shared_physical_network = false
public_network_id = {public_network_id}
floating_network_name = {public_network_name}

[network-feature-enabled]
api_extensions = {network_extensions}
available_features =
# Off: provisioner's networks are IPv4 only (ip_version 4), a port's admin state
# is always up; port security (and the port-security and allowed-address-pairs
# extensions, not in NETWORK_EXTENSIONS above) is not yet tried with tempest.
ipv6 = false
ipv6_subnet_attributes = false
port_admin_state_change = false
port_security = false
floating_ips = true

[volume]
catalog_type = block-storage
region = RegionOne
endpoint_type = public
min_microversion = {volume_min}
max_microversion = {volume_max}
build_timeout = {build_timeout}
build_interval = 1
volume_size = 1
volume_size_extend = 1

[volume-feature-enabled]
# On: snapshots and clones (volumes from a snapshot or a volume). Off, features
# provisioner does not have: backups, manage and unmanage, replication, several
# backends, extending an attached volume, image dependencies (upload to image).
# api_extensions: the first is the one test_list_extensions looks for in GET
# .../extensions.
backup = false
snapshot = true
clone = true
manage_snapshot = false
manage_volume = false
replication = false
multi_backend = false
api_extensions = os-vol-tenant-attr,os-volume-actions,os-vol-image-meta
extend_attached_volume = false
extend_attached_encrypted_volume = false
extend_volume_with_snapshot = false
enable_volume_image_dep_tests = false

[validation]
# Off: the host never initiates traffic to a guest (no SSH, no ping from it).
run_validation = false
"""


def tempest_conf(url, seeded, accounts_file, project_cidr, lock_path, dynamic=False):
    """tempest.conf's text for the deployment at url seeded with ``seeded``."""
    admin = seeded.accounts[0]
    return _TEMPLATE.format(
        url=url, dynamic=str(dynamic).lower(), accounts_file=accounts_file,
        lock_path=lock_path,
        admin_user=admin.username, admin_password=admin.password,
        admin_project=admin.project_name,
        image=seeded.images[0], image_alt=seeded.images[1],
        flavor=seeded.flavors[0], flavor_alt=seeded.flavors[1],
        network_name=seeded.network_name,
        compute_min=COMPUTE_MICROVERSIONS[0], compute_max=COMPUTE_MICROVERSIONS[1],
        volume_min=VOLUME_MICROVERSIONS[0], volume_max=VOLUME_MICROVERSIONS[1],
        build_timeout=BUILD_TIMEOUT, filters=','.join(SCHEDULER_FILTERS),
        project_cidr=project_cidr, network_extensions=','.join(NETWORK_EXTENSIONS),
        public_network_id=seeded.public_network_id,
        public_network_name=seeded.public_network_name)


def accounts_yaml(seeded):
    """tempest's pre-provisioned accounts file: every seeded user, its role, and the
    shared network its servers use."""
    entries = []
    for account in seeded.accounts:
        if account.project_name is None:  # system scope: no project, no network
            scope = "system: 'all'\n  user_domain_name: 'Default'"
        else:
            scope = ("project_name: '%s'\n  domain_name: 'Default'\n  resources:\n"
                     "    network: '%s'" % (account.project_name, seeded.network_name))
        entries.append("- username: '%s'\n  password: '%s'\n  roles: [%s]\n  %s\n" % (
            account.username, account.password,
            ', '.join("'%s'" % r for r in account.roles), scope))
    return ''.join(entries)
