"""Quotas, one owner: what each project may use, counted and enforced per kind.

- compute (instances, vcpus, ram_mib) and volume (volumes_gib): counters reserved
  with one conditional UPDATE each in the transaction that records what uses them,
  given back once (``counters``);
- network (network, subnet, port): counted from the rows, as Neutron does
  (``networks``);
- limits of every kind: a project's own, else the ``[quota]`` defaults
  (``limits``); a caller's view of them, under policy (``api``).

Each API shows them in its own service's words (Nova's quota sets, Neutron's
quotas, Cinder's gigabytes): provisioner.api.<service>.
"""
