"""What a guest needs, as plain data: tasks build it without importing libvirt."""

import dataclasses


@dataclasses.dataclass
class GuestSpec:
    """Everything the designer needs to shape one domain.

    Paths are host paths prepared by earlier steps; ``volumes`` is a list of
    (path, serial) and ``nics`` a list of (mac, libvirt network name[, MTU[,
    nwfilter name]]).
    """

    uuid: str
    display_name: str
    vcpus: int
    memory_mib: int
    console_log: str
    root_disk: str | None = None
    kernel: str | None = None
    ramdisk: str | None = None
    cmdline: str | None = None
    volumes: list = dataclasses.field(default_factory=list)
    config_drive: str | None = None
    nics: list = dataclasses.field(default_factory=list)
