#!/usr/bin/env bash
# The kernel suite: builds build/khttpd.ko, boots the installed Debian kernel
# in qemu (TCG) with an initramfs holding busybox, the virtio-net modules,
# the module and the test tree, then from the host
#   1. runs the shared integration suite (tests/integration/run.sh) against
#      the module through a forwarded loopback port, and
#   2. runs the load/unload lifecycle checks (lifecycle.py) through a second
#      forwarded port, the busybox-httpd control channel.
# Prints "kernel-integration: N passed, N failed, N skipped" and
# "kernel-lifecycle: N passed, N failed"; exits non-zero on any failure.
# Environment: BUILD (build dir), MAKE, HTSTRESS_BIN, KHTTPD_TIMEOUT_S (the
# module's timeout during the integration suite, seconds), and
# KHTTPD_TESTS (a -k filter passed to the integration runner).
set -u
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
timeout_s=${KHTTPD_TIMEOUT_S:-3}
boot_timeout=120
start_time=$(date +%s)

pass=0
fail=0
check() { # NAME STATUS [DETAIL]
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok   $1"
	else
		fail=$((fail + 1))
		echo "FAIL $1${3:+: $3}"
	fi
}

work=$(mktemp -d /tmp/khttpd-test.XXXXXX)
qemu_pidfile=$work/qemu.pid
serial=$work/serial.log
serial_shown=0
mkdir -p "$BUILD/logs"

stop_qemu() {
	local pid
	[ -s "$qemu_pidfile" ] || return 0
	pid=$(cat "$qemu_pidfile")
	if kill "$pid" 2>/dev/null; then
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null
	fi
	rm -f "$qemu_pidfile"
}

show_serial() {
	[ "$serial_shown" -eq 0 ] || return 0
	serial_shown=1
	echo "--- guest serial log ($serial) ---"
	[ -f "$serial" ] && tail -n 200 "$serial"
	echo "--- end of guest serial log ---"
}

finish() {
	# Cleanup first: with stdout gone, any echo may end the shell.
	stop_qemu
	if [ -f "$serial" ]; then
		cp "$serial" "$BUILD/logs/kernel-serial.log"
		serial=$BUILD/logs/kernel-serial.log
	fi
	rm -rf "$work"
	if [ "$fail" -gt 0 ]; then
		show_serial
	fi
	echo "kernel suite took $(($(date +%s) - start_time)) s"
	echo "kernel-lifecycle: $pass passed, $fail failed"
}
trap finish EXIT
trap 'exit 130' INT TERM HUP PIPE

# --- build ---------------------------------------------------------------
kver=$(tests/kernel/kver.sh) || {
	check "kernel image and headers installed" 1
	exit 1
}
if ! "$MAKE" --no-print-directory module >"$work/build.log" 2>&1; then
	cat "$work/build.log"
	check "module builds (W=1, -Werror)" 1
	exit 1
fi
if grep -i 'warning:' "$work/build.log"; then
	check "module builds without warnings" 1
else
	check "module builds without warnings (W=1, -Werror)" 0
fi

# --- initramfs -----------------------------------------------------------
root=$work/initramfs
mkdir -p "$root"/{bin,dev,proc,sys,tmp,modules,srv,etc,ctl/cgi-bin}
cp /bin/busybox "$root/bin/busybox"
cp tests/kernel/init.sh "$root/init"
cp tests/kernel/ctl.cgi "$root/ctl/cgi-bin/run"
cp "$BUILD/khttpd.ko" "$root/khttpd.ko"
echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev \
	virtio_pci failover net_failover virtio_net; do
	ko=$(find "/lib/modules/$kver" -name "$m.ko" | head -n 1)
	if [ -z "$ko" ]; then
		check "module $m.ko found in /lib/modules/$kver" 1
		exit 1
	fi
	cp "$ko" "$root/modules/"
done
# A static htstress drives load from inside the guest (through the port
# forward it would measure qemu's user-mode network, not the module).
if ! gcc -static -O2 -std=gnu11 -D_GNU_SOURCE -Isrc -pthread \
	-o "$root/bin/htstress" tools/htstress/*.c -lm >"$work/htstress.log" 2>&1; then
	tail -n 20 "$work/htstress.log"
	check "a static htstress for the guest builds" 1
fi
tree=$work/tree
if ! python3 tests/integration/tree.py "$tree" >/dev/null; then
	check "test tree built by tests/integration/tree.py" 1
	exit 1
fi
cp -a "$tree/www" "$tree/outside" "$root/srv/"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) \
	>"$work/initramfs.cpio" || {
	check "initramfs packed" 1
	exit 1
}

# --- boot ----------------------------------------------------------------
read -r http_port ctl_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in ss))')
guest_port=8081
append="console=ttyS0 quiet panic=-1 slub_debug=FZPU khttpd_port=$guest_port"
append="$append khttpd_ctl_port=8080 khttpd_timeout_ms=$((timeout_s * 1000))"
fwd_http=hostfwd=tcp:127.0.0.1:$http_port-:$guest_port
fwd_ctl=hostfwd=tcp:127.0.0.1:$ctl_port-:8080
qemu-system-x86_64 -accel tcg -m 512 -smp 2 -no-reboot \
	-kernel "/boot/vmlinuz-$kver" -initrd "$work/initramfs.cpio" \
	-append "$append" \
	-display none -serial "file:$serial" -monitor none \
	-pidfile "$qemu_pidfile" -daemonize \
	-netdev "user,id=n0,$fwd_http,$fwd_ctl" \
	-device virtio-net-pci,netdev=n0 >"$work/qemu.out" 2>&1
if [ $? -ne 0 ]; then
	cat "$work/qemu.out"
	check "qemu starts" 1
	exit 1
fi
boot_start=$(date +%s)
state=
while [ $(($(date +%s) - boot_start)) -lt $boot_timeout ]; do
	if grep -q KHTTPD-READY "$serial" 2>/dev/null; then
		state=ready
		break
	fi
	if grep -q KHTTPD-FAILED "$serial" 2>/dev/null; then
		state=failed
		break
	fi
	if ! kill -0 "$(cat "$qemu_pidfile" 2>/dev/null)" 2>/dev/null; then
		state=died
		break
	fi
	sleep 0.5
done
if [ "$state" != ready ]; then
	check "guest boots and loads khttpd" 1 \
		"${state:-timed out after $boot_timeout s}"
	exit 1
fi
check "guest boots and loads khttpd ($(($(date +%s) - boot_start)) s)" 0

# --- the shared integration suite ----------------------------------------
filter=()
[ -n "${KHTTPD_TESTS:-}" ] && filter=(-k "$KHTTPD_TESTS")
HTTPD_TARGET=127.0.0.1:$http_port HTTPD_KIND=khttpd HTTPD_TREE=$tree \
	HTTPD_TIMEOUT_S=$timeout_s tests/integration/run.sh "${filter[@]}" 2>&1 |
	sed -u 's/^integration: \([0-9]* passed\)/kernel-integration: \1/' |
	tee "$work/integration.out"
integration_rc=${PIPESTATUS[0]}
if ! grep -q '^kernel-integration: ' "$work/integration.out"; then
	check "integration suite ran to its summary line" 1 "exit $integration_rc"
fi

# --- unloading, reloading, the kernel log ----------------------------------
python3 tests/kernel/lifecycle.py --http-port "$http_port" \
	--ctl-port "$ctl_port" --tree "$tree" --serial "$serial" \
	--guest-port "$guest_port" --timeout-ms $((timeout_s * 1000)) \
	>"$work/lifecycle.out" 2>&1
lifecycle_rc=$?
grep -v '^lifecycle-totals' "$work/lifecycle.out"
totals=$(grep '^lifecycle-totals' "$work/lifecycle.out")
lf=0
if [ -n "$totals" ]; then
	read -r _ lp lf <<<"$totals"
	pass=$((pass + lp))
	fail=$((fail + lf))
fi
if [ -z "$totals" ] || { [ "$lifecycle_rc" -ne 0 ] && [ "$lf" -eq 0 ]; }; then
	check "lifecycle.py ran to the end" 1 "exit $lifecycle_rc"
fi
if [ "$integration_rc" -ne 0 ] || [ "$fail" -gt 0 ]; then
	show_serial
	exit 1
fi
exit 0
