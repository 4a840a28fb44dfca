"""[network] and [l2] options: network segments (engines) and the L2 agent (workers)."""

from oslo_config import cfg

network_opts = [
    cfg.StrOpt('tenant_network_type',
               default='vxlan',
               choices=[('vxlan', 'A VXLAN segment per network, its VNI from '
                                  'vni_ranges.')],
               help='Type of the segment a network gets when its creator names '
                    'none (Neutron\'s tenant_network_types). Related options: '
                    'vni_ranges.'),
    cfg.ListOpt('vni_ranges',
                default=['1:1000'],
                help='VXLAN network identifiers networks get, as MIN:MAX ranges '
                     '(Neutron\'s [ml2_type_vxlan] vni_ranges). A network is refused '
                     'with Neutron\'s 503 NoNetworkAvailable once every VNI is '
                     'taken; an admin may still name a VNI outside them.'),
    cfg.StrOpt('default_floating_pool',
               default='public',
               help='The external network (name or id) a floating IP comes from when '
                    'the compute API\'s os-floating-ips is asked for one without a '
                    'pool (Nova\'s [neutron] default_floating_pool).'),
]

l2_opts = [
    cfg.StrOpt('local_ip',
               help='This host\'s address on the underlay network, the source of '
                    'its VXLAN tunnels (Neutron\'s [vxlan] local_ip). Unset: the '
                    'host keeps each network an isolated bridge of its own, with its '
                    'own DHCP server (a single host needs nothing more). Set on '
                    'every host of a multi-host cloud: each network is then one L2 '
                    'segment across the hosts, served by one DHCP server.'),
    cfg.IntOpt('vxlan_port',
               default=4789,
               min=1, max=65535,
               help='UDP port of the VXLAN tunnels (IANA\'s 4789; the same on every '
                    'host).'),
    cfg.IntOpt('underlay_mtu',
               default=1500,
               min=1280, max=9216,
               help='MTU of the underlay network; guests of a VXLAN network get 50 '
                    'bytes less (1450 on a 1500 underlay), the VXLAN header\'s '
                    'overhead.'),
]


def register_opts(conf):
    conf.register_opts(network_opts, group='network')
    conf.register_opts(l2_opts, group='l2')


def list_opts():
    return {'network': network_opts, 'l2': l2_opts}
