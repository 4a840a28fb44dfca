"""The documents a guest reads about itself, as OpenStack writes them: meta_data.json
and network_data.json (the config drive's and the metadata service's), and the EC2
meta-data tree of the metadata service.

Built from what the services hold (a compute.instances.BuildRequest, the ports as
network.ipam gives them), importing no database: a host step's module (the config
drive's) builds from here too.
"""

import ipaddress

from provisioner import naming


def meta_data(req, devices=()):
    """meta_data.json; ``devices``: Nova's device metadata (tagged devices)."""
    data = {'uuid': req.id, 'name': req.name,
            'hostname': req.hostname or naming.hostname(req.name),
            'project_id': req.project_id, 'launch_index': 0,
            'availability_zone': req.availability_zone or 'nova',
            'meta': dict(req.properties), 'devices': list(devices)}
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


# The EC2 meta-data versions Nova serves, oldest first ("latest" is the last).
EC2_VERSIONS = ('1.0', '2007-01-19', '2007-03-01', '2007-08-29', '2007-10-10',
                '2007-12-15', '2008-02-01', '2008-09-01', '2009-04-04')


def ec2_id(prefix, uuid):
    """An EC2-style id (i-0a1b2c3d, ami-...) for an instance or image uuid: its
    first 32 bits. Nova maps uuids to counters in a table of its own; here nothing
    needs the way back, so the uuid's prefix is stable enough to name it by."""
    return '%s-%s' % (prefix, uuid.replace('-', '')[:8])


def _since(first, version):
    return EC2_VERSIONS.index(version) >= EC2_VERSIONS.index(first)


def ec2_meta_data(req, ports, version, flavor_name='', security_groups=()):
    """The EC2 meta-data tree of ``version`` (one of EC2_VERSIONS) as Nova's
    InstanceMetadata.get_ec2_metadata builds it: a dict of str (leaves) and dicts
    (directories); a directory holding '_name' lists as that name, as EC2's
    public-keys/ lists '0=keyname'."""
    hostname = req.hostname or naming.hostname(req.name)
    fixed_ip = next((p['ip'] for p in ports if p.get('ip')), '')
    data = {'ami-id': ec2_id('ami', req.image.get('id') or req.id),
            'ami-launch-index': '0', 'ami-manifest-path': 'FIXME',
            'instance-id': ec2_id('i', req.id), 'hostname': hostname,
            'local-ipv4': fixed_ip, 'reservation-id': ec2_id('r', req.id),
            'security-groups': '\n'.join(security_groups)}
    if req.key_data:
        data['public-keys'] = {'0': {'_name': '0=%s' % req.key_name,
                                     'openssh-key': req.key_data}}
    if _since('2007-01-19', version):
        data.update({'local-hostname': hostname, 'public-hostname': hostname,
                     'public-ipv4': ''})
    if _since('2007-08-29', version):
        data['instance-type'] = flavor_name
    if _since('2007-12-15', version):
        data['block-device-mapping'] = {'ami': 'vda', 'root': '/dev/vda'}
    if _since('2008-02-01', version):
        data['placement'] = {'availability-zone': req.availability_zone or 'nova'}
    if _since('2008-09-01', version):
        data['instance-action'] = 'none'
    return data
