#!/bin/bash
# Prepare a Debian 12 host for provisioner: install the Debian packages listed in
# bindep.txt, start virtlogd + libvirtd, and fix /dev/kvm permissions.
#
# Idempotent and fast when everything is already in place. Run as root.
#
# It never starts libvirt's stock `default` NAT network and never enables
# ip_forward: provisioner's guest networks are isolated libvirt networks.
#
# Environment:
#   LIBVIRT_URI          libvirt URI to wait for (default qemu:///system)
#   LIBVIRT_WAIT_SECONDS how long to wait for libvirtd to answer (default 30)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BINDEP="${HERE}/../bindep.txt"
LIBVIRT_URI="${LIBVIRT_URI:-qemu:///system}"
LIBVIRT_WAIT_SECONDS="${LIBVIRT_WAIT_SECONDS:-30}"
DEFAULT_NET_AUTOSTART=/etc/libvirt/qemu/networks/autostart/default.xml

say() { echo "setup-host: $*"; }
die() { echo "setup-host: ERROR: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (try: sudo $0)"
[ -r "$BINDEP" ] || die "cannot read $BINDEP"
command -v dpkg-query >/dev/null && command -v apt-get >/dev/null \
    || die "this script supports Debian/Ubuntu (apt) hosts only"

# --- 1. packages ----------------------------------------------------------------

# Package names from bindep.txt: first word of every non-comment line, keeping lines
# without a platform selector or whose selector mentions platform:dpkg / platform:debian.
bindep_packages() {
    local line name profiles
    while IFS= read -r line || [ -n "$line" ]; do
        line="${line%%#*}"
        read -r name _ <<<"$line" || true
        [ -n "${name:-}" ] || continue
        profiles=""
        if [[ "$line" == *"["*"]"* ]]; then
            profiles="${line#*[}"; profiles="${profiles%%]*}"
        fi
        if [[ "$profiles" == *platform:* ]]; then
            [[ " $profiles " =~ [[:space:]]platform:(dpkg|debian)[[:space:]] ]] || continue
        fi
        echo "$name"
    done <"$BINDEP"
}

mapfile -t PACKAGES < <(bindep_packages)
[ "${#PACKAGES[@]}" -gt 0 ] || die "no packages found in $BINDEP"

MISSING=()
for pkg in "${PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
    [ "$status" = installed ] || MISSING+=("$pkg")
done

if [ "${#MISSING[@]}" -eq 0 ]; then
    say "all ${#PACKAGES[@]} packages from bindep.txt are installed"
else
    say "installing ${#MISSING[@]} missing package(s): ${MISSING[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # Refresh the package lists once, only when they are missing or older than a day;
    # if the install still fails (stale lists), refresh and retry once.
    if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null | head -n1)" ]; then
        say "apt-get update"
        apt-get update -q
        UPDATED=1
    fi
    if ! apt-get install -y -q --no-install-recommends "${MISSING[@]}"; then
        [ -z "${UPDATED:-}" ] || die "apt-get install failed"
        say "install failed; apt-get update and retry"
        apt-get update -q
        apt-get install -y -q --no-install-recommends "${MISSING[@]}" || die "apt-get install failed"
    fi
fi

# --- 2. /dev/kvm ----------------------------------------------------------------
# Without group kvm access, libvirtd re-probes QEMU on every call (+4 s per create).
if [ -e /dev/kvm ]; then
    if [ "$(stat -c '%U:%G %a' /dev/kvm)" != "root:kvm 660" ]; then
        say "chown root:kvm /dev/kvm; chmod 0660 /dev/kvm"
        getent group kvm >/dev/null || groupadd --system kvm
        chown root:kvm /dev/kvm
        chmod 0660 /dev/kvm
    else
        say "/dev/kvm is root:kvm 0660"
    fi
else
    say "/dev/kvm absent: guests will use software emulation (type='qemu')"
fi

# --- 3. libvirt daemons ---------------------------------------------------------

libvirt_answers() { virsh -q -c "$LIBVIRT_URI" version >/dev/null 2>&1; }

if libvirt_answers; then
    say "libvirtd already answers on $LIBVIRT_URI"
else
    # libvirtd starts every network marked autostart when it starts. Refuse rather
    # than bring up the stock NAT network (which turns on ip_forward) behind the
    # operator's back; the autostart flag itself is left alone.
    if [ -e "$DEFAULT_NET_AUTOSTART" ] && ! pgrep -x libvirtd >/dev/null; then
        die "libvirt's 'default' NAT network is marked autostart ($DEFAULT_NET_AUTOSTART);
starting libvirtd would start it and enable ip_forward. provisioner does not use it.
Disable it with: rm $DEFAULT_NET_AUTOSTART   (or: virsh net-autostart --disable default)
then run this script again."
    fi
    if [ -d /run/systemd/system ] && command -v systemctl >/dev/null \
            && systemctl start virtlogd.service libvirtd.service 2>/dev/null; then
        say "started virtlogd + libvirtd with systemctl"
    else
        if pgrep -x virtlogd >/dev/null; then
            say "virtlogd already running"
        else
            say "starting virtlogd -d"
            virtlogd -d
        fi
        if pgrep -x libvirtd >/dev/null; then
            say "libvirtd already running (waiting for it to answer)"
        else
            say "starting libvirtd -d"
            libvirtd -d
        fi
    fi
    say "waiting up to ${LIBVIRT_WAIT_SECONDS}s for virsh -c $LIBVIRT_URI version"
    deadline=$((SECONDS + LIBVIRT_WAIT_SECONDS))
    until libvirt_answers; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            virsh -c "$LIBVIRT_URI" version >&2 || true
            die "libvirtd did not answer on $LIBVIRT_URI within ${LIBVIRT_WAIT_SECONDS}s
(check: pgrep -a libvirtd; the daemon logs to syslog or /var/log/libvirt/)"
        fi
        sleep 0.5
    done
    say "libvirtd answers on $LIBVIRT_URI"
fi

# --- 4. libvirt's rbd storage backend -------------------------------------------
# libvirtd loads its storage backends when it starts. On a fresh host the packages
# above are installed first, so a libvirtd started here has it; one that was already
# running when libvirt-daemon-driver-storage-rbd was installed does not, until it is
# restarted. That restart is the operator's call (it does not stop running guests,
# but it drops every client's connection), so it is only reported. RBD disks of
# domains need only QEMU's driver (qemu-block-extra), and work either way.
if dpkg-query -W -f='${db:Status-Status}' libvirt-daemon-driver-storage-rbd 2>/dev/null \
        | grep -qx installed; then
    if virsh -q -c "$LIBVIRT_URI" pool-capabilities 2>/dev/null \
            | grep -q "<pool type='rbd' supported='yes'>"; then
        say "libvirtd has its rbd storage backend"
    else
        say "NOTE: libvirtd started before its rbd storage backend was installed: storage pools
of type rbd work after a restart of libvirtd (RBD disks of domains work without it)"
    fi
fi

# --- 5. report on the stock 'default' network (never started here) -------------
if virsh -q -c "$LIBVIRT_URI" net-info default >/dev/null 2>&1; then
    active="$(virsh -c "$LIBVIRT_URI" net-info default | awk '/^Active:/ {print $2}')"
    autostart="$(virsh -c "$LIBVIRT_URI" net-info default | awk '/^Autostart:/ {print $2}')"
    say "libvirt 'default' network: active=${active:-?} autostart=${autostart:-?} (left as is; provisioner never starts it)"
    [ "${active:-}" != yes ] || say "WARNING: 'default' NAT network is active (ip_forward may be on); provisioner does not need it"
fi

say "host ready"
