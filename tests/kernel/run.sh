#!/usr/bin/env bash
# The kernel suite on one kernel (tests/kernel/run-all.sh runs it on each,
# once build-all.sh built the modules): boots the Debian kernel KVER in
# qemu (TCG) with an initramfs holding busybox, the virtio-net modules,
# BUILD/modules/KVER/khttpd.ko and the test tree, then from the host
#   1. runs the shared integration suite (tests/integration/run.sh) against
#      the module through a forwarded loopback port, and
#   2. runs the load/unload lifecycle checks (lifecycle.py) through a second
#      forwarded port, the busybox-httpd control channel.
# The guest itself (initramfs, boot, stop) is tests/kernel/guest.sh's.
# Prints "kernel-6.12-integration: N passed, N failed, N skipped" and
# "kernel-6.12-lifecycle: N passed, N failed" (6.12: KVER's series), then
#   3. runs kecho's checks (kecho.py: kecho.ko and a static echo-bench are
#      in the guest too), "kernel-6.12-kecho: N passed, N failed", and
#   4. sehttpd's kTLS checks (ktls.py: tls.ko, a static sehttpd and a
#      static TLS client in the guest), "kernel-6.12-ktls: N passed, N failed".
# Exits non-zero on any failure.
# Environment: KVER (default: the newest kernel installed), BUILD (build
# dir), MAKE, HTSTRESS_BIN, KHTTPD_TIMEOUT_S (the
# module's timeout during the integration suite, seconds), and
# KHTTPD_TESTS (-k filters for the integration runner, separated by
# commas), and
# KHTTPD_LIFECYCLE (which lifecycle parts run: cycles,site,deploy,fair,
# heavy,memcg,pins,crowd,burst,10000,limits).
set -u
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
. tests/kernel/guest.sh
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
timeout_s=${KHTTPD_TIMEOUT_S:-3}
boot_timeout=120
start_time=$(date +%s)
kver=${KVER:-$(tests/kernel/kver.sh)} || {
	echo "kernel: no kernel with its image and headers installed"
	echo "kernel-lifecycle: 0 passed, 1 failed"
	exit 1
}
# "kernel-6.12": the series names the suite's lines.
suite=kernel-$(cut -d. -f1,2 <<<"$kver")

. tests/checks.sh

kecho_pass= # set once kecho.py has run
kecho_fail=0
ktls_pass= # set once ktls.py has run
ktls_fail=0
work=$(mktemp -d /tmp/khttpd-test.XXXXXX)
qemu_pidfile=$work/qemu.pid
serial=$work/serial.log
serial_shown=0
mkdir -p "$BUILD/logs"

show_serial() {
	[ "$serial_shown" -eq 0 ] || return 0
	serial_shown=1
	echo "--- guest serial log ($serial) ---"
	[ -f "$serial" ] && tail -n 200 "$serial"
	echo "--- end of guest serial log ---"
}

finish() {
	# Cleanup first: with stdout gone, any echo may end the shell.
	guest_stop "$qemu_pidfile"
	if [ -f "$serial" ]; then
		cp "$serial" "$BUILD/logs/$suite-serial.log"
		serial=$BUILD/logs/$suite-serial.log
	fi
	rm -rf "$work"
	if [ "$fail" -gt 0 ]; then
		show_serial
	fi
	echo "$suite suite took $(($(date +%s) - start_time)) s"
	echo "$suite-lifecycle: $pass passed, $fail failed"
	if [ -n "$kecho_pass" ]; then
		echo "$suite-kecho: $kecho_pass passed, $kecho_fail failed"
	fi
	if [ -n "$ktls_pass" ]; then
		echo "$suite-ktls: $ktls_pass passed, $ktls_fail failed"
	fi
}
trap finish EXIT
trap 'exit 130' INT TERM HUP PIPE

# --- the modules (built by build-all.sh) ----------------------------------
modules=$BUILD/modules/$kver
for m in khttpd kecho; do
	if [ ! -e "$modules/$m.ko" ]; then
		check "$m.ko built for $kver" 1 "make modules-all"
		exit 1
	fi
done

# --- initramfs -----------------------------------------------------------
root=$work/initramfs
if ! missing=$(guest_stage "$root" "$kver" "$modules/khttpd.ko"); then
	check "module $missing.ko found among the kernel $kver's" 1
	exit 1
fi
if ! guest_static_htstress "$root/bin/htstress" "$work/htstress.log"; then
	tail -n 20 "$work/htstress.log"
	check "a static htstress for the guest builds" 1
fi
if ! gcc -static -O2 -std=gnu11 -o "$root/bin/holdconns" \
	tests/kernel/holdconns.c >"$work/holdconns.log" 2>&1; then
	tail -n 20 "$work/holdconns.log"
	check "a static holdconns for the guest builds" 1
fi
if ! gcc -static -O2 -std=gnu11 -o "$root/bin/slowread" \
	tests/kernel/slowread.c >"$work/slowread.log" 2>&1; then
	tail -n 20 "$work/slowread.log"
	check "a static slowread for the guest builds" 1
fi
if ! gcc -static -O2 -std=gnu11 -o "$root/bin/streambody" \
	tests/kernel/streambody.c >"$work/streambody.log" 2>&1; then
	tail -n 20 "$work/streambody.log"
	check "a static streambody for the guest builds" 1
fi
cp "$modules/kecho.ko" "$root/kecho.ko"
if ! guest_static_echo_bench "$root/bin/echo-bench" "$work/echo.log"; then
	tail -n 20 "$work/echo.log"
	check "a static echo-bench for the guest builds" 1
fi
if ! missing=$(guest_stage_ktls "$root" "$kver" "$work/ktls.log"); then
	tail -n 20 "$work/ktls.log"
	check "for kTLS in the guest: $missing" 1
fi
tree=$work/tree
if ! python3 tests/integration/tree.py "$tree" >/dev/null; then
	check "test tree built by tests/integration/tree.py" 1
	exit 1
fi
cp -a "$tree/www" "$tree/outside" "$root/srv/"
guest_pack "$root" "$work/initramfs.cpio" || {
	check "initramfs packed" 1
	exit 1
}

# --- boot ----------------------------------------------------------------
read -r http_port ctl_port < <(guest_free_ports 2)
guest_port=8081
append="console=ttyS0 quiet panic=-1 slub_debug=FZPU khttpd_port=$guest_port"
append="$append khttpd_ctl_port=8080 khttpd_timeout_ms=$((timeout_s * 1000))"
if ! guest_boot "$kver" "$work/initramfs.cpio" "$append" "$serial" \
	"$qemu_pidfile" "$work/qemu.out" "$http_port:$guest_port" \
	"$ctl_port:8080"; then
	cat "$work/qemu.out"
	check "qemu starts" 1
	exit 1
fi
boot_start=$(date +%s)
state=$(guest_wait_ready "$serial" "$qemu_pidfile" $boot_timeout)
if [ "$state" != ready ]; then
	check "guest boots and loads khttpd" 1 \
		"${state:-timed out after $boot_timeout s}"
	exit 1
fi
check "guest boots and loads khttpd ($(($(date +%s) - boot_start)) s)" 0

# --- the shared integration suite ----------------------------------------
# Tests that start a server with flags load the module again with the
# parameters for them, through the control channel (target.py).  Through
# qemu's emulation the suite takes minutes: its watchdog waits longer.
filter=()
IFS=, read -ra patterns <<<"${KHTTPD_TESTS:-}"
for p in "${patterns[@]}"; do
	filter+=(-k "$p")
done
HTTPD_TARGET=127.0.0.1:$http_port HTTPD_KIND=khttpd HTTPD_TREE=$tree \
	HTTPD_TIMEOUT_S=$timeout_s HTTPD_CTL_PORT=$ctl_port \
	HTTPD_MODULE_ARGS="root=/srv/www port=$guest_port timeout_ms=$((timeout_s * 1000))" \
	tests/integration/run.sh --watchdog 600 "${filter[@]}" 2>&1 |
	sed -u "s/^integration: \([0-9]* passed\)/$suite-integration: \1/" |
	tee "$work/integration.out"
integration_rc=${PIPESTATUS[0]}
if ! grep -q "^$suite-integration: " "$work/integration.out"; then
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

# guest_script NAME: runs tests/kernel/NAME.py against the guest, shows its
# lines and sets NAME_pass and NAME_fail from its last one, "NAME-totals P F"
# (one failure more when it did not run to the end).
guest_script() {
	local name=$1 out=$work/$1.out rc totals p=0 f=0
	python3 "tests/kernel/$name.py" --ctl-port "$ctl_port" >"$out" 2>&1
	rc=$?
	grep -v "^$name-totals" "$out"
	totals=$(grep "^$name-totals" "$out")
	if [ -n "$totals" ]; then
		read -r _ p f <<<"$totals"
	fi
	if [ -z "$totals" ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		f=$((f + 1))
		echo "FAIL $name.py ran to the end: exit $rc"
	fi
	printf -v "${name}_pass" %s "$p"
	printf -v "${name}_fail" %s "$f"
}

# kecho: echoes, and unloads with clients connected; then sehttpd's kTLS,
# records made by the guest kernel.
guest_script kecho
guest_script ktls
if [ "$integration_rc" -ne 0 ] || [ "$fail" -gt 0 ] ||
	[ "$kecho_fail" -gt 0 ] || [ "$ktls_fail" -gt 0 ]; then
	show_serial
	exit 1
fi
exit 0
