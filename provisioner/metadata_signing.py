"""The metadata service's signed headers, shared by provisioner-api (which checks
them) and the metadata proxy of each network (which signs them).

Two ways to name the instance a request is for, each signed with the shared secret
(``[metadata] proxy_shared_secret``) by HMAC-SHA256, hex:
- Neutron's metadata agent's, as Nova reads them: ``X-Instance-ID``,
  ``X-Tenant-ID`` and ``X-Instance-ID-Signature`` = HMAC(secret, instance id).
- provisioner's own proxy's, which knows only where the request came from: the
  network (``X-Neutron-Network-ID``) and the guest's address (the first address of
  ``X-Forwarded-For``), signed together in ``X-Metadata-Proxy-Signature``; the API
  finds the port holding that address on that network. Neutron's agent asks
  neutron-server for the same before it signs the instance id.
"""

import hashlib
import hmac

INSTANCE_ID = 'X-Instance-ID'
TENANT_ID = 'X-Tenant-ID'
INSTANCE_ID_SIGNATURE = 'X-Instance-ID-Signature'
NETWORK_ID = 'X-Neutron-Network-ID'
FORWARDED_FOR = 'X-Forwarded-For'
PROXY_SIGNATURE = 'X-Metadata-Proxy-Signature'

# Every header naming or vouching for an instance: a proxy drops these from what a
# guest sends before it adds its own.
IDENTITY_HEADERS = (INSTANCE_ID, TENANT_ID, INSTANCE_ID_SIGNATURE, NETWORK_ID,
                    FORWARDED_FOR, PROXY_SIGNATURE, 'X-Metadata-Provider',
                    'X-Metadata-Provider-Signature')


def sign(secret, message):
    """HMAC-SHA256 of ``message`` under ``secret``, hex (Nova's and Neutron's)."""
    return hmac.new(secret.encode('utf-8'), message.encode('utf-8'),
                    hashlib.sha256).hexdigest()


def source_message(network_id, address):
    """What the proxy's signature covers: the network and the guest's address (a
    space cannot occur in either, so no two pairs give one message)."""
    return '%s %s' % (network_id, address)


def matches(secret, message, signature):
    """Whether ``signature`` is the message's, compared in constant time."""
    if not secret or not signature:
        return False
    return hmac.compare_digest(sign(secret, message).encode('ascii'),
                               signature.encode('utf-8', 'replace'))
