"""The hypervisor driver of this host, one per process (it holds the connection)."""

import threading

_driver = None
_lock = threading.Lock()


def get_driver():
    global _driver
    with _lock:
        if _driver is None:
            from provisioner.virt import driver
            _driver = driver.LibvirtDriver()
        return _driver


def reset_driver():
    """Forget the driver (tests switch hypervisors and state paths)."""
    global _driver
    with _lock:
        _driver = None
