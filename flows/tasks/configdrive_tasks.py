"""The step that writes the config drive the guest reads (documented steps 52-54)."""

import base64
import ipaddress

from provisioner.compute import instances
from provisioner import naming

from flows import constants
from flows.host import configdrive_steps
from flows.tasks import base


def meta_data(req):
    data = {'uuid': req.id, 'name': req.name,
            'hostname': naming.hostname(req.name),
            'project_id': req.project_id, 'launch_index': 0,
            'availability_zone': req.availability_zone or 'nova',
            'meta': dict(req.properties)}
    if req.key_data:
        # OpenStack's meta_data.json carries the key pair twice: cloud-init reads
        # public_keys, newer agents read keys.
        data['public_keys'] = {req.key_name: req.key_data}
        data['keys'] = [{'name': req.key_name, 'type': 'ssh', 'data': req.key_data}]
    return data


def network_data(ports):
    """network_data.json as the OpenStack metadata service writes it: a subnet's DNS
    servers as services, no default route without a gateway."""
    links, networks, services = [], [], []
    for index, port in enumerate(ports):
        net = port['network']
        cidr = ipaddress.ip_network(net['cidr'])
        link_id = 'tap%d' % index
        links.append({'id': link_id, 'type': 'phy', 'vif_id': port['id'],
                      'ethernet_mac_address': port['mac'], 'mtu': 1500})
        dns = list(net.get('dns_nameservers') or ())
        networks.append({
            'id': 'network%d' % index, 'link': link_id, 'type': 'ipv4',
            'network_id': net['id'], 'ip_address': port['ip'],
            'netmask': str(cidr.netmask), 'dns_nameservers': dns,
            'routes': [{'network': '0.0.0.0', 'netmask': '0.0.0.0',
                        'gateway': net['gateway']}] if net.get('gateway') else [],
            'services': [{'type': 'dns', 'address': a} for a in dns]})
        services += [{'type': 'dns', 'address': a} for a in dns
                     if {'type': 'dns', 'address': a} not in services]
    return {'links': links, 'networks': networks, 'services': services}


class BuildConfigDrive(base.HostTask):
    """Write the ISO 9660 config drive: meta_data, network_data and user_data.

    Reversion strategy: delete the drive file by its deterministic name.
    """

    default_provides = constants.CONFIG_DRIVE
    step = configdrive_steps.BuildConfigDrive

    def build_payload(self, instance_id, ports):
        # user_data is read here, from the instance row, so it never enters the
        # flow store (TaskFlow persists every task's inputs and results).
        user_data = instances.user_data(instance_id)
        return configdrive_steps.ConfigDrivePayload(
            instance_id, meta_data(instances.build_request(instance_id)),
            network_data(ports),
            None if user_data is None else base64.b64encode(user_data).decode('ascii'))


class DeleteConfigDrive(base.HostTask):
    """Delete the instance's config drive."""

    deferrable = True
    step = configdrive_steps.DeleteConfigDrive
