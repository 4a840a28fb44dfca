"""[token] and [fernet_tokens] options: tokens and their keys."""

from oslo_config import cfg

token_opts = [
    cfg.IntOpt('expiration',
               default=3600,
               min=60,
               help='Seconds a token stays valid after it is issued. Related '
                    'options: [fernet_tokens] max_active_keys (rotate keys more '
                    'rarely than tokens expire).'),
    cfg.StrOpt('cache_dir',
               sample_default='$XDG_CACHE_HOME/provisioner/tokens',
               help='Where the CLI caches its token between commands (one owner-only '
                    'file per user, project, password and deployment). Unset means '
                    '$XDG_CACHE_HOME/provisioner/tokens, or ~/.cache/provisioner/tokens.'),
]

fernet_opts = [
    cfg.StrOpt('key_repository',
               sample_default='$state_path/fernet-keys',
               help='Directory of the Fernet keys that sign and encrypt tokens. '
                    'Unset means $state_path/fernet-keys. Every engine of a '
                    'deployment must see the same keys (share or copy the '
                    'directory). Create it with "provisioner token-keys setup"; '
                    'rotate with "provisioner token-keys rotate".'),
    cfg.IntOpt('max_active_keys',
               default=3,
               min=2,
               help='Keys kept by a rotation: the primary (signs new tokens), a '
                    'staged key (the next primary) and older keys that still '
                    'validate tokens issued before the last rotations. A token '
                    'outlives max_active_keys - 2 rotations.'),
]


def register_opts(conf):
    conf.register_opts(token_opts, group='token')
    conf.register_opts(fernet_opts, group='fernet_tokens')


def list_opts():
    return {'token': token_opts, 'fernet_tokens': fernet_opts}
