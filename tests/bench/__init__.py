import sys

# As in the CLI (provisioner/cmd/cli.py): provisioner runs on threads only.
sys.modules.setdefault('eventlet', None)
