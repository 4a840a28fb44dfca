"""Ansible's openstack.cloud collection and openstacksdk's cloud layer against a
private provisioner-api all-in-one (``tox -e ansible``, ``python -m tests.ansible``)."""
