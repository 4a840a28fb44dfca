#!/usr/bin/env bash
# The baselines for the real-boot benchmark: the same work as a provisioner boot, done
# by hand with qemu-img, genisoimage and virsh, with no database, no flow and no
# rollback. TOOL picks how the domain is made: virsh (default; define + start of a
# hand-written domain XML) or virt-install (which writes the XML itself); the rest
# is shared. Usage: plain_boot.sh DIR KERNEL INITRD NETWORK MAC IP UUID [TOOL]
set -euo pipefail
dir=$1 kernel=$2 initrd=$3 network=$4 mac=$5 ip=$6 uuid=$7 tool=${8:-virsh}
name=plain-$uuid
mkdir -p "$dir/cd/openstack/latest"
chmod 0755 "$dir"

qemu-img create -q -f qcow2 "$dir/root.qcow2" 1G
qemu-img create -q -f qcow2 "$dir/volume.qcow2" 1G
printf '{"uuid": "%s", "hostname": "plain"}' "$uuid" > "$dir/cd/openstack/latest/meta_data.json"
echo '{"links": [], "networks": [], "services": []}' > "$dir/cd/openstack/latest/network_data.json"
echo 'plain user data' > "$dir/cd/openstack/latest/user_data"
genisoimage -quiet -o "$dir/config.iso" -V config-2 -J -R "$dir/cd"

# MAC -> IP is pinned in the network's DHCP server by the caller (provisioner's
# dnsmasq serves the network: real_boot.py adds the entry inside the timed window).
: "$ip"

if [ "$tool" = virt-install ]; then
  # The same guest as the XML below; virt-install adds its own defaults (USB
  # controllers, APIC, clock timers) and starts the domain it defines.
  virt-install -q --connect qemu:///system --name "$name" --uuid "$uuid" \
    --virt-type qemu --arch x86_64 --machine pc --memory 128 --vcpus 1 --import \
    --disk "path=$dir/root.qcow2,format=qcow2,bus=virtio" \
    --disk "path=$dir/volume.qcow2,format=qcow2,bus=virtio" \
    --disk "path=$dir/config.iso,device=disk,format=raw,bus=virtio,readonly=on" \
    --network "network=$network,mac=$mac,model=virtio" \
    --boot "kernel=$kernel,initrd=$initrd,kernel_args=console=ttyS0" \
    --serial "file,path=$dir/console.log" --graphics none --osinfo generic \
    --noautoconsole >/dev/null
else
cat > "$dir/domain.xml" <<XML
<domain type='qemu'>
  <name>$name</name><uuid>$uuid</uuid>
  <memory unit='MiB'>128</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$kernel</kernel><initrd>$initrd</initrd><cmdline>console=ttyS0</cmdline></os>
  <features><acpi/></features>
  <devices>
    <disk type='file' device='disk'><driver name='qemu' type='qcow2'/>
      <source file='$dir/root.qcow2'/><target dev='vda' bus='virtio'/></disk>
    <disk type='file' device='disk'><driver name='qemu' type='qcow2'/>
      <source file='$dir/volume.qcow2'/><target dev='vdb' bus='virtio'/></disk>
    <disk type='file' device='disk'><driver name='qemu' type='raw'/>
      <source file='$dir/config.iso'/><target dev='vdc' bus='virtio'/><readonly/></disk>
    <interface type='network'><source network='$network'/><mac address='$mac'/>
      <model type='virtio'/></interface>
    <serial type='file'><source path='$dir/console.log'/><target port='0'/></serial>
  </devices>
</domain>
XML
virsh -q -c qemu:///system define "$dir/domain.xml" >/dev/null
virsh -q -c qemu:///system start "$name" >/dev/null
fi
until grep -q 'PROVISIONER-GUEST: ready' "$dir/console.log" 2>/dev/null; do sleep 0.05; done
