#!/usr/bin/env bash
# `make soak-kernel`: khttpd's soak in the test guest.  Boots the installed
# Debian kernel KVER in qemu (tests/kernel/guest.sh) with an initramfs
# holding busybox, BUILD/modules/KVER/khttpd.ko and a tree made by
# soak_kernel.py --stage (the served files, and a pool of every version
# the faults will give them, so that the host knows each one's bytes);
# /init loads khttpd over it.  Then soak_kernel.py drives it for SOAK_S
# seconds from the host through two forwarded loopback ports (khttpd's,
# and the control channel's, ctl.cgi) and prints its counts and a last
# line "soak-kernel: N passed, N failed".  Exits non-zero on any failure.
# Environment: SOAK_S (default 600), KVER (default: the newest kernel
# installed), BUILD (build dir), HTSTRESS_BIN (host htstress; none: no
# bulk load).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/kernel/guest.sh
BUILD=${BUILD:-build}
soak_s=${SOAK_S:-600}
timeout_ms=5000
boot_timeout=180
kver=${KVER:-$(tests/kernel/kver.sh)} || {
	echo "soak-kernel: no kernel with its image and headers installed"
	echo "soak-kernel: 0 passed, 1 failed"
	exit 1
}
out=$BUILD/soak-kernel
mkdir -p "$out"
work=$(mktemp -d /tmp/khttpd-soak.XXXXXX)
qemu_pidfile=$work/qemu.pid
serial=$work/serial.log

fail() {
	echo "soak-kernel: $*"
	echo "soak-kernel: 0 passed, 1 failed"
	exit 1
}

finish() {
	guest_stop "$qemu_pidfile"
	[ -f "$serial" ] && cp "$serial" "$out/serial.log"
	rm -rf "$work"
}
trap finish EXIT
trap 'exit 130' INT TERM HUP PIPE

module=$BUILD/modules/$kver/khttpd.ko
[ -e "$module" ] || fail "$module missing: make modules-all"
root=$work/initramfs
if ! missing=$(guest_stage "$root" "$kver" "$module"); then
	fail "module $missing.ko not found among the kernel $kver's"
fi
/usr/bin/python3 tests/kernel/soak_kernel.py --stage "$root" ||
	fail "staging the tree failed"
guest_pack "$root" "$work/initramfs.cpio" || fail "initramfs not packed"

read -r http_port ctl_port < <(guest_free_ports 2)
guest_port=8081
# The guest powers itself off should the host side die (init.sh).
append="console=ttyS0 quiet panic=-1 slub_debug=FZPU khttpd_port=$guest_port"
append="$append khttpd_ctl_port=8080 khttpd_timeout_ms=$timeout_ms"
append="$append khttpd_max_s=$((soak_s + 900))"
if ! guest_boot "$kver" "$work/initramfs.cpio" "$append" "$serial" \
	"$qemu_pidfile" "$work/qemu.out" "$http_port:$guest_port" \
	"$ctl_port:8080"; then
	cat "$work/qemu.out"
	fail "qemu did not start"
fi
state=$(guest_wait_ready "$serial" "$qemu_pidfile" $boot_timeout)
if [ "$state" != ready ]; then
	tail -n 50 "$serial"
	fail "guest did not boot and load khttpd: ${state:-timed out}"
fi
echo "soak-kernel: guest $kver booted, khttpd loaded"

htstress=()
[ -n "${HTSTRESS_BIN:-}" ] && htstress=(--htstress "$HTSTRESS_BIN")
/usr/bin/python3 tests/kernel/soak_kernel.py --seconds "$soak_s" \
	--http-port "$http_port" --ctl-port "$ctl_port" \
	--guest-port "$guest_port" --timeout-ms "$timeout_ms" \
	--pool "$root" --serial "$serial" --out "$out" \
	--qemu-pidfile "$qemu_pidfile" \
	--kernel "$kver" "${htstress[@]}"
