#!/bin/busybox sh
# /init of the khttpd test guest (tests/kernel/run.sh packs it).  Brings up
# virtio networking for qemu's user-mode network, starts the control channel
# (busybox httpd running the POSTed shell text, see ctl.cgi) and loads
# khttpd over the test tree.  Settings come from the kernel command line:
# khttpd_port, khttpd_ctl_port, khttpd_timeout_ms, khttpd_max_s (lifetime).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# Warnings and worse reach the serial log as they happen.
dmesg -n 5

say() {
	echo "$*" >/dev/console
}

# In load order, those the kernel has not built in (tests/kernel/guest.sh).
for m in $(cat /modules/order); do
	insmod "/modules/$m.ko" || say "KHTTPD-INIT: insmod $m failed"
done
# The device appears asynchronously after virtio_net loads.
i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2

# Should the host side die without killing qemu, the guest ends itself.
(sleep "${khttpd_max_s:-1200}"; say "KHTTPD-WATCHDOG: powering off"
	poweroff -f) &
httpd -p "${khttpd_ctl_port:-8080}" -h /ctl
if insmod /khttpd.ko root=/srv/www port="${khttpd_port:-8081}" \
	timeout_ms="${khttpd_timeout_ms:-15000}"; then
	say "KHTTPD-READY"
else
	say "KHTTPD-FAILED"
	dmesg | tail -20 >/dev/console
fi
while :; do
	sleep 3600
done
