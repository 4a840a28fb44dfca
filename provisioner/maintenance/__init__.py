"""Finding and removing what this deployment left on its hosts (issue 13 item 3).

Host side (no database): ``host`` lists and removes this deployment's resources of
one host with its driver. Database side: ``audit`` compares an inventory with the
``records`` of that host; ``teardown`` checks that a host is unused. They talk over
the ``maintenance`` RPC namespace (``rpcapi``), or in-process all-in-one.
"""
