"""[api] options: where provisioner-api listens and how it presents itself."""

from oslo_config import cfg

api_opts = [
    cfg.HostAddressOpt('bind_host',
                       default='127.0.0.1',
                       help='Address provisioner-api listens on. 0.0.0.0 serves every '
                            'interface (put TLS in front of it).'),
    cfg.PortOpt('bind_port',
                default=8774,
                help='TCP port provisioner-api listens on. Every service shares it, '
                     'path-prefixed as devstack does: /identity, /compute/v2.1, '
                     '/image, /network, /volume/v3/{project_id}.'),
    cfg.URIOpt('public_url',
               help='Base URL clients reach the API at (e.g. https://cloud.example'
                    ':8774), used in the service catalog and version documents. '
                    'Unset: the scheme and Host header of each request, which is '
                    'right unless a proxy rewrites them.'),
    cfg.IntOpt('threads',
               default=16,
               min=1,
               help='Requests served at once (threads of the WSGI server). Boots '
                    'run elsewhere (all-in-one: [engine] max_concurrent_flows '
                    'threads; distributed: the engines), so a request holds its '
                    'thread only for a few database round trips.'),
    cfg.IntOpt('max_request_body_size',
               default=114688,
               min=1024,
               help='Largest request body accepted, in bytes (413 above it), as '
                    'oslo.middleware\'s sizelimit. User data is at most 64 KiB, '
                    'which base64 makes ~88 KiB.'),
    cfg.IntOpt('max_limit',
               default=1000,
               min=1,
               help='Most items one list request returns (Nova\'s '
                    '[api] max_limit); clients page with limit and marker.'),
]


def register_opts(conf):
    conf.register_opts(api_opts, group='api')


def list_opts():
    return {'api': api_opts}
