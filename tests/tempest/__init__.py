"""tempest against provisioner-api: ``tox -e tempest`` (``python -m tests.tempest``).

A private all-in-one provisioner-api (tests/functional/api/conftest.py's ApiCloud: its
own state_path, libvirt resource prefix and free port) is seeded through the REST API
with what tempest needs, tempest.conf is written for what provisioner has, tempest's
API tests of compute, image, network, volume and identity run, and everything is
removed at the end; anything a test left behind fails the run.
"""
