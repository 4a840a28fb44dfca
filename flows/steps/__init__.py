"""The steps of every flow, one module per resource.

Each module holds, for each step on its resource, the TaskFlow atom the engine runs
(the engine half), the half that runs on the hypervisor host when the step changes
it, and their payloads (``base`` says how they fit). The modules holding a host half
(``image``, ``network``, ``volume``, ``configdrive``, ``domain``, ``power``,
``attach``) import nothing of the database, since a worker imports them; the
engine-only ones (``lifecycle``, ``quota``, ``scheduling``, ``reschedule``) do.
``registry`` finds a host step by its registered name.
"""
