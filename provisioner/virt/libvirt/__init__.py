"""The libvirt driver: policy-free XML objects, one designer, thin wrappers."""
