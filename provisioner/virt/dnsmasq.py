"""A network's dnsmasq, as Neutron's DHCP agent runs it: what to write, what to run
(no side effects here; provisioner.virt.dhcp_namespace does them).

One dnsmasq per network serves every subnet of it with DHCP enabled, each in
``static`` mode (a lease only for a MAC the hosts file pins: IPAM owns the
addresses), tagged with its subnet so the options file gives each its own router,
DNS servers, classless static routes and MTU. Hosts and options files are re-read
on SIGHUP; the command line (ranges, interface) changes only with the subnets, and
then dnsmasq is started again.
"""

import ipaddress

from provisioner.network import addressing

METADATA_IP = '169.254.169.254'
LEASE_TIME = '86400s'  # Neutron's dhcp_lease_duration


def subnets(net):
    """The network's subnets: ``net['subnets']``, else the network dict itself when it
    carries one subnet (its cidr)."""
    if net.get('subnets') is not None:
        return list(net['subnets'])
    return [net] if net.get('cidr') else []


def served(net):
    """The subnets whose DHCP is on, each checked as an IPv4 subnet."""
    found = []
    for subnet in subnets(net):
        if not subnet.get('enable_dhcp', True):
            continue
        cidr = ipaddress.ip_network(subnet['cidr'], strict=False)
        if cidr.version != 4:
            continue  # IPv4 only: an IPv6 subnet gets no DHCP here
        found.append(subnet)
    return found


def tag(index):
    return 'subnet%d' % index


def port_address(subnet):
    """The DHCP port's address on the subnet (the gateway's, or without one the
    first host address outside the pool: addressing.host_address)."""
    return subnet.get('address') or addressing.host_address(subnet)


def interface_addresses(net):
    """'IP/prefixlen' of the DHCP port on each served subnet, then the metadata
    address (169.254.169.254/32), as the namespace's interface carries them."""
    found = []
    for subnet in served(net):
        cidr = ipaddress.IPv4Network(subnet['cidr'], strict=False)
        found.append('%s/%d' % (port_address(subnet), cidr.prefixlen))
    return found + ['%s/32' % METADATA_IP]


def argv(interface, files, net):
    """dnsmasq's command line: no DNS (port 0), no system configuration, its files
    (``files``: {'pid', 'hosts', 'opts', 'leases', 'log'}), one static range per
    served subnet. Runs as root (its files live under state_path, which need not be
    readable by dnsmasq's default user when it re-reads them on SIGHUP)."""
    args = ['dnsmasq', '--conf-file=/dev/null', '--no-hosts', '--no-resolv',
            '--port=0', '--user=root', '--group=root',
            '--pid-file=%s' % files['pid'],
            '--dhcp-hostsfile=%s' % files['hosts'],
            '--dhcp-optsfile=%s' % files['opts'],
            '--dhcp-leasefile=%s' % files['leases'],
            '--log-facility=%s' % files['log'],
            '--interface=%s' % interface, '--except-interface=lo',
            '--bind-interfaces', '--dhcp-authoritative', '--no-ping']
    for index, subnet in enumerate(served(net)):
        cidr = ipaddress.IPv4Network(subnet['cidr'], strict=False)
        args.append('--dhcp-range=set:%s,%s,static,%s,%s' % (
            tag(index), cidr.network_address, cidr.netmask, LEASE_TIME))
    return args


def options(net, mtu=None):
    """The options file's lines: per subnet its router (empty without a gateway: no
    default route), DNS servers, MTU and classless static routes (121): the
    metadata address via the DHCP port, the subnet's host routes and, with a
    gateway, the default route (a client given 121 ignores the router option)."""
    lines = []
    for index, subnet in enumerate(served(net)):
        head = 'tag:%s,' % tag(index)
        gateway = subnet.get('gateway')
        if gateway:
            gateway = str(ipaddress.IPv4Address(gateway))
            lines.append(head + 'option:router,%s' % gateway)
        else:
            lines.append(head + 'option:router')
        servers = [str(ipaddress.IPv4Address(s))
                   for s in subnet.get('dns_nameservers') or ()]
        if servers:
            lines.append(head + 'option:dns-server,%s' % ','.join(servers))
        if mtu:
            lines.append(head + 'option:mtu,%d' % int(mtu))
        routes = [('%s/32' % METADATA_IP, port_address(subnet))]
        routes += [(str(ipaddress.IPv4Network(r['destination'])),
                    str(ipaddress.IPv4Address(r['nexthop'])))
                   for r in subnet.get('host_routes') or ()]
        if gateway:
            routes.append(('0.0.0.0/0', gateway))
        lines.append(head + 'option:classless-static-route,%s' % ','.join(
            '%s,%s' % route for route in routes))
    return lines


def host_lines(entries):
    """The hosts file's lines for [{'mac', 'ip', 'hostname'?}]: 'mac,ip[,name]'; a
    name given to an earlier MAC goes without (dnsmasq takes one per name)."""
    lines, names = [], set()
    for entry in sorted(entries, key=lambda e: ipaddress.IPv4Address(e['ip'])):
        mac = entry['mac'].lower()
        ip = str(ipaddress.IPv4Address(entry['ip']))
        name = entry.get('hostname')
        if name and name not in names:
            names.add(name)
            lines.append('%s,%s,%s' % (mac, ip, name))
        else:
            lines.append('%s,%s' % (mac, ip))
    return lines


def parse_host_lines(text):
    """[{'mac', 'ip', 'name'}] of a hosts file (host_lines' format)."""
    found = []
    for line in text.splitlines():
        fields = line.strip().split(',')
        if len(fields) >= 2:
            found.append({'mac': fields[0], 'ip': fields[1],
                          'name': fields[2] if len(fields) > 2 else None})
    return found
