#!/usr/bin/env bash
# `make bench-kernel`: khttpd against sehttpd in ONE qemu guest (TCG, 2
# vCPUs), both serving the same generated tree (bench/tree.py), each driven
# by a static htstress inside the guest.  Boots the guest of the kernel
# suite (tests/kernel/guest.sh) with a static sehttpd added and without the
# suite's slub_debug, then bench/kernel/measure.py does the measuring
# through the control channel.  Arguments go to measure.py.
# Environment: KVER (the kernel to boot; default the newest installed),
# BUILD (build dir; needs BUILD/modules/KVER/khttpd.ko and a static
# BUILD/static/sehttpd, which `make bench-kernel` builds first, and runs
# this on each kernel installed).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/kernel/guest.sh
BUILD=${BUILD:-build}
boot_timeout=120
# Ports inside the guest; init.sh loads khttpd on khttpd_port.
khttpd_port=8081
sehttpd_port=8082
ctl_port=8080

die() {
	echo "bench-kernel: $*" >&2
	exit 1
}

kver=${KVER:-$(tests/kernel/kver.sh)} ||
	die "no kernel image and headers installed"
module=$BUILD/modules/$kver/khttpd.ko
for f in "$module" "$BUILD/static/sehttpd"; do
	[ -f "$f" ] || die "$f not built (run make bench-kernel)"
done

work=$(mktemp -d /tmp/khttpd-bench.XXXXXX)
qemu_pidfile=$work/qemu.pid
serial=$work/serial.log
mkdir -p "$BUILD/logs"
finish() {
	guest_stop "$qemu_pidfile"
	[ -f "$serial" ] &&
		cp "$serial" "$BUILD/logs/bench-kernel-$kver-serial.log"
	rm -rf "$work"
}
trap finish EXIT
trap 'exit 130' INT TERM HUP PIPE

# --- initramfs -----------------------------------------------------------
root=$work/initramfs
missing=$(guest_stage "$root" "$kver" "$module") ||
	die "module $missing.ko not found among the kernel $kver's"
guest_static_htstress "$root/bin/htstress" "$work/htstress.log" || {
	tail -n 20 "$work/htstress.log"
	die "a static htstress for the guest does not build"
}
cp "$BUILD/static/sehttpd" "$root/bin/sehttpd"
python3 -B -c 'import sys; sys.path.insert(0, "bench"); import tree
tree.make_tree(sys.argv[1])' "$root/srv/www" || die "bench tree not made"
guest_pack "$root" "$work/initramfs.cpio" || die "initramfs not packed"

# --- boot ----------------------------------------------------------------
read -r host_khttpd host_sehttpd host_ctl < <(guest_free_ports 3)
# The watchdog (khttpd_max_s) powers the guest off should this script die
# without stopping qemu.  The module's timeout is sehttpd's (15 s).
append="console=ttyS0 quiet panic=-1 khttpd_port=$khttpd_port"
append="$append khttpd_ctl_port=$ctl_port khttpd_timeout_ms=15000"
append="$append khttpd_max_s=1200"
guest_boot "$kver" "$work/initramfs.cpio" "$append" "$serial" \
	"$qemu_pidfile" "$work/qemu.out" "$host_khttpd:$khttpd_port" \
	"$host_sehttpd:$sehttpd_port" "$host_ctl:$ctl_port" || {
	cat "$work/qemu.out"
	die "qemu did not start"
}
boot_start=$(date +%s)
state=$(guest_wait_ready "$serial" "$qemu_pidfile" $boot_timeout)
if [ "$state" != ready ]; then
	tail -n 40 "$serial"
	die "guest did not boot and load khttpd: ${state:-timed out}"
fi
echo "bench-kernel: guest $kver booted, khttpd loaded in" \
	"$(($(date +%s) - boot_start)) s"

python3 bench/kernel/measure.py --ctl-port "$host_ctl" \
	--khttpd "$host_khttpd:$khttpd_port" \
	--sehttpd "$host_sehttpd:$sehttpd_port" \
	--tree "$root/srv/www" --serial "$serial" --kernel "$kver" \
	--out "bench/results/kernel-$(cut -d. -f1,2 <<<"$kver").json" "$@"
