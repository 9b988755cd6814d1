#!/usr/bin/env bash
# `make bench-echo`: kecho (event-driven and classic, unbound and bound
# workqueue) against user-echo-server in ONE qemu guest (TCG, 2 vCPUs), each
# driven by a static echo-bench inside the guest.  Boots the kernel suite's
# guest (tests/kernel/guest.sh) with kecho.ko and the static user-space
# programs added; bench/kecho/measure.py measures through the control
# channel and draws the chart.  Arguments go to measure.py.
# Environment: BUILD (build dir; needs BUILD/khttpd.ko and BUILD/kecho.ko).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/kernel/guest.sh
BUILD=${BUILD:-build}
boot_timeout=120
ctl_port=8080

die() {
	echo "bench-echo: $*" >&2
	exit 1
}

for f in "$BUILD/khttpd.ko" "$BUILD/kecho.ko"; do
	[ -f "$f" ] || die "$f not built (run make bench-echo)"
done
kver=$(tests/kernel/kver.sh) || die "no kernel image and headers installed"

work=$(mktemp -d /tmp/kecho-bench.XXXXXX)
qemu_pidfile=$work/qemu.pid
serial=$work/serial.log
mkdir -p "$BUILD/logs"
finish() {
	guest_stop "$qemu_pidfile"
	[ -f "$serial" ] && cp "$serial" "$BUILD/logs/bench-echo-serial.log"
	rm -rf "$work"
}
trap finish EXIT
trap 'exit 130' INT TERM HUP PIPE

root=$work/initramfs
missing=$(guest_stage "$root" "$kver" "$BUILD/khttpd.ko") ||
	die "module $missing.ko not found among the kernel $kver's"
cp "$BUILD/kecho.ko" "$root/kecho.ko"
mkdir -p "$root/srv/www" # the guest's /init loads khttpd there; unloaded first
guest_static_echo_bench "$root/bin/echo-bench" "$work/build.log" || {
	tail -n 20 "$work/build.log"
	die "a static echo-bench does not build"
}
gcc -static -O2 -std=gnu11 -D_GNU_SOURCE -pthread \
	-o "$root/bin/user-echo-server" src/kecho/user/user_echo_server.c \
	>"$work/build.log" 2>&1 || {
	tail -n 20 "$work/build.log"
	die "a static user-echo-server does not build"
}
guest_pack "$root" "$work/initramfs.cpio" || die "initramfs not packed"

read -r host_ctl < <(guest_free_ports 1)
append="console=ttyS0 quiet panic=-1 khttpd_ctl_port=$ctl_port"
append="$append khttpd_max_s=1200"
guest_boot "$kver" "$work/initramfs.cpio" "$append" "$serial" \
	"$qemu_pidfile" "$work/qemu.out" "$host_ctl:$ctl_port" || {
	cat "$work/qemu.out"
	die "qemu did not start"
}
state=$(guest_wait_ready "$serial" "$qemu_pidfile" $boot_timeout)
[ "$state" = ready ] || die "guest did not boot: ${state:-timed out}"

python3 bench/kecho/measure.py --ctl-port "$host_ctl" \
	--out "$BUILD/bench-echo" --kernel "$kver" "$@"
