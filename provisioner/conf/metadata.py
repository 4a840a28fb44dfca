"""[metadata] options: the metadata service at 169.254.169.254 (provisioner-api's
endpoint, and the proxy each network's DHCP host runs)."""

from oslo_config import cfg

metadata_opts = [
    cfg.StrOpt('proxy_shared_secret',
               secret=True,
               help='Secret shared by provisioner-api and the metadata proxies of '
                    'the hosts (every worker), with which a proxy signs whom a '
                    'request is for (Nova\'s [neutron] metadata_proxy_shared_secret, '
                    'Neutron\'s metadata_proxy_shared_secret): the same value on '
                    'every one of them. Unset: the metadata service is off (the '
                    'API answers 503, no proxy runs); guests still read their '
                    'config drive. Related options: api_url.'),
    cfg.URIOpt('api_url',
               schemes=['http', 'https'], secret=True,  # a URL may carry a password
               help='URL of provisioner-api\'s metadata endpoint as this host '
                    'reaches it, e.g. http://controller:8774/metadata (Neutron\'s '
                    'nova_metadata_host and port): where a worker\'s metadata '
                    'proxies forward the guests\' requests. Unset: no proxy runs on '
                    'this host. Related options: proxy_shared_secret.'),
    cfg.IntOpt('proxy_timeout',
               default=10,
               min=1,
               help='Seconds a metadata proxy waits for provisioner-api\'s answer '
                    'before it answers the guest 504.'),
]


def register_opts(conf):
    conf.register_opts(metadata_opts, group='metadata')


def list_opts():
    return {'metadata': metadata_opts}
