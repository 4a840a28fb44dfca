"""Hypervisor hosts on one machine: network + mount namespaces, each with its own libvirtd.

``tools/hosts`` is the command line; this package is its implementation, standard
library only, run as root. What one run (one TAG) makes::

    root namespace                 TAG-fabric namespace          TAG-h1 namespace (+ mount,
                                                                  uts, pid namespaces)
    TAG-mgmt 10.99.K.1/24 ---veth--- mgmt \\                      +-- underlay 10.99.K.11/24
      relays: 10.99.K.1:PORT              br-underlay -- h1 ---veth-+   libvirtd, QEMU guests,
      -> 127.0.0.1:PORT                  /            \\ h2 ---veth--   anything exec'd there
                                       NAME ---veth--- TAG-NAME (attach: a plain namespace)

Every kernel object is named after the TAG (namespaces ``TAG-*``, the root leg
``TAG-mgmt``), so ``down --name TAG`` finds all of it even without the state file.

Traffic rules: the underlay is a bridge inside the fabric namespace; it carries only
traffic between the run's own namespaces. The root namespace gets one address on it
(``TAG-mgmt``) and nothing else: no ip_forward, no NAT, no route but the underlay's
own /24, which nothing outside this machine can reach. The hosts' daemons reach the
services on the root namespace's loopback (RabbitMQ, the image API) through relays:
userspace processes that accept on the management address and connect to
127.0.0.1:PORT, so every packet is between this machine's own processes and nothing
is forwarded or rewritten by the kernel. The namespaces have no default route and an
empty resolv.conf: nothing inside can reach, or look up, anything off this machine.
"""
