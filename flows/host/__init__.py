"""The host side of the host steps: what a worker runs, from its payload alone.

Nothing under ``flows.host`` reads or imports the database: a worker imports these
modules and nothing of ``flows.tasks`` beyond its base.
"""
