# Sourced (bash): the qemu guest that khttpd runs in, shared by the kernel
# suite (tests/kernel/run.sh) and the kernel benchmark (bench/kernel/run.sh).
# The guest boots a Debian kernel (tests/kernel/kver.sh) under TCG from an
# initramfs holding busybox, /init (init.sh), the control channel
# (ctl.cgi), the virtio-net modules, khttpd.ko and a static htstress; /init
# loads khttpd over /srv/www and prints KHTTPD-READY (or KHTTPD-FAILED) on
# the serial console.  The caller fills ROOT/srv before packing.  Run from
# the repository's root.

GUEST_VIRTIO_MODULES="virtio_ring virtio virtio_pci_modern_dev \
virtio_pci_legacy_dev virtio_pci failover net_failover virtio_net"
# tls.ko and, in load order, what its "gcm(aes)" needs from the crypto API
# (the guest has no modprobe to find them).
GUEST_KTLS_MODULES="gf128mul ghash-generic ctr gcm tls"

# guest_copy_modules DIR KVER MODULE...: each MODULE of the kernel KVER
# that is not built into it, after the modules it depends on
# (modules.dep), into DIR as a plain NAME.ko (6.12's are .ko.xz, which
# busybox's insmod cannot read), and their load order appended to
# DIR/order.  On a missing one prints its name and fails.
guest_copy_modules() {
	local dir=$1 kver=$2 mdir m
	shift 2
	touch "$dir/order"
	# No modules of kver at all: the first asked for is missing.
	mdir=$(tests/kernel/kver.sh --modules "$kver") || {
		echo "$1"
		return 1
	}
	for m in "$@"; do
		guest_copy_module "$dir" "$mdir" "$m" || return 1
	done
}

guest_copy_module() {
	local dir=$1 mdir=$2 m=$3 rel deps dep
	! grep -qx -- "$m" "$dir/order" || return 0
	# modules.dep lines: "kernel/net/tls/tls.ko.xz: kernel/...ko.xz ..."
	{
		read -r rel
		read -r deps
	} < <(awk -F': *' -v m="$m" '{
		n = $1; sub(/.*\//, "", n); sub(/\.ko.*/, "", n)
		if (n == m) { print $1; print $2; exit }
	}' "$mdir/modules.dep")
	if [ -z "$rel" ]; then
		grep -q "/$m\.ko\$" "$mdir/modules.builtin" && return 0
		echo "$m"
		return 1
	fi
	for dep in $deps; do
		dep=${dep##*/}
		guest_copy_module "$dir" "$mdir" "${dep%%.ko*}" || return 1
	done
	case $rel in
	*.xz) xz -dc <"$mdir/$rel" ;;
	*.zst) zstd -qdc <"$mdir/$rel" ;;
	*) cat "$mdir/$rel" ;;
	esac >"$dir/$m.ko" || {
		echo "$m"
		return 1
	}
	echo "$m" >>"$dir/order"
}

# guest_stage ROOT KVER MODULE: busybox, /init, the control channel, the
# module and the virtio-net modules into ROOT.  On a missing kernel module
# prints its name and fails.
guest_stage() {
	local root=$1 kver=$2 module=$3
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,modules,srv,etc,ctl/cgi-bin}
	cp /bin/busybox "$root/bin/busybox"
	cp tests/kernel/init.sh "$root/init"
	cp tests/kernel/ctl.cgi "$root/ctl/cgi-bin/run"
	cp "$module" "$root/khttpd.ko"
	echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"
	guest_copy_modules "$root/modules" "$kver" $GUEST_VIRTIO_MODULES
}

# guest_static_htstress OUT LOG: a static htstress, to drive load from
# inside the guest (through the port forward it would measure qemu's
# user-mode network, not the server).
guest_static_htstress() {
	gcc -static -O2 -std=gnu11 -D_GNU_SOURCE -Isrc -pthread \
		-o "$1" tools/htstress/*.c -lm >"$2" 2>&1
}

# guest_static_echo_bench OUT LOG: a static echo-bench, the kecho client.
guest_static_echo_bench() {
	gcc -static -O2 -std=gnu11 -D_GNU_SOURCE -pthread \
		-o "$1" src/kecho/user/echo_bench.c -lm >"$2" 2>&1
}

# guest_stage_ktls ROOT KVER LOG: for ktls.py, into ROOT/ktls: tls.ko and
# the AES-GCM modules it needs (their load order in ROOT/ktls/order), a
# certificate and key, and into ROOT/bin a
# static sehttpd (a sub-make into $BUILD/static) and a static TLS client.
# On failure prints what is missing.
guest_stage_ktls() {
	local root=$1 kver=$2 log=$3 m
	mkdir -p "$root/ktls"
	if ! m=$(guest_copy_modules "$root/ktls" "$kver" $GUEST_KTLS_MODULES); then
		echo "module $m.ko of the kernel $kver"
		return 1
	fi
	if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -keyout "$root/ktls/key.pem" -out "$root/ktls/cert.pem" \
		-days 2 -subj /CN=guest >>"$log" 2>&1; then
		echo "a test certificate (openssl req)"
		return 1
	fi
	if ! "$MAKE" --no-print-directory BUILD="$BUILD/static" \
		OPTFLAGS='-O2 -g -static' "$BUILD/static/sehttpd" >>"$log" 2>&1 ||
		! cp "$BUILD/static/sehttpd" "$root/bin/sehttpd"; then
		echo "a static sehttpd"
		return 1
	fi
	if ! gcc -static -O2 -std=gnu11 -D_GNU_SOURCE -o "$root/bin/tlsget" \
		tests/kernel/tlsget.c -lssl -lcrypto >>"$log" 2>&1; then
		echo "a static tlsget"
		return 1
	fi
}

# guest_pack ROOT OUT: ROOT as a newc cpio archive.
guest_pack() {
	(cd "$1" && find . -print0 | cpio --null -o -H newc --quiet) >"$2"
}

# guest_free_ports N: N free loopback TCP ports on one line.
guest_free_ports() {
	python3 -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in ss))' "$1"
}

# guest_boot KVER INITRAMFS APPEND SERIAL PIDFILE OUT HOSTFWD...: starts qemu
# daemonized (2 vCPUs, 512 MiB), its messages in OUT; each HOSTFWD is
# HOSTPORT:GUESTPORT, forwarded from 127.0.0.1.  The CPU has RDRAND, so
# that the kernel's random pool is ready at boot: without it, it became
# ready minutes into the tests, and the static key that flips then is
# patched in with int3 while the other vCPU runs, which TCG once turned
# into an oops (int3 in urandom_read_iter, on 6.12).
guest_boot() {
	local kver=$1 initramfs=$2 append=$3 serial=$4 pidfile=$5 out=$6
	local netdev=user,id=n0 fwd image
	shift 6
	image=$(tests/kernel/kver.sh --image "$kver") || return 1
	for fwd in "$@"; do
		netdev=$netdev,hostfwd=tcp:127.0.0.1:${fwd%%:*}-:${fwd#*:}
	done
	qemu-system-x86_64 -accel tcg -cpu qemu64,+rdrand -m 512 -smp 2 -no-reboot \
		-kernel "$image" -initrd "$initramfs" \
		-append "$append" \
		-display none -serial "file:$serial" -monitor none \
		-pidfile "$pidfile" -daemonize \
		-netdev "$netdev" \
		-device virtio-net-pci,netdev=n0 >"$out" 2>&1
}

# guest_wait_ready SERIAL PIDFILE SECONDS: prints ready, failed (the module
# did not load), died (qemu is gone) or nothing (timed out).
guest_wait_ready() {
	local serial=$1 pidfile=$2 start
	start=$(date +%s)
	while [ $(($(date +%s) - start)) -lt "$3" ]; do
		if grep -q KHTTPD-READY "$serial" 2>/dev/null; then
			echo ready
			return
		fi
		if grep -q KHTTPD-FAILED "$serial" 2>/dev/null; then
			echo failed
			return
		fi
		if ! kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null; then
			echo died
			return
		fi
		sleep 0.5
	done
}

# guest_stop PIDFILE: ends the qemu that PIDFILE names (TERM, then KILL).
guest_stop() {
	local pid
	[ -s "$1" ] || return 0
	pid=$(cat "$1")
	if kill "$pid" 2>/dev/null; then
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null
	fi
	rm -f "$1"
}
