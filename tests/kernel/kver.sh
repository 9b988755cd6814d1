#!/usr/bin/env bash
# Prints the version of the newest installed Debian kernel that has both its
# image (/boot/vmlinuz-VER) and its headers (/usr/src/linux-headers-VER);
# with --cc, the compiler those headers were built with (e.g. gcc-12).
# Never `uname -r`: that is the host's kernel, not the one the guest boots.
set -eu
ver=
for img in /boot/vmlinuz-*; do
	v=${img#/boot/vmlinuz-}
	[ -e "/usr/src/linux-headers-$v/Makefile" ] || continue
	if [ -z "$ver" ] || dpkg --compare-versions "$v" gt "$ver"; then
		ver=$v
	fi
done
if [ -z "$ver" ]; then
	echo "kver.sh: no kernel with both /boot/vmlinuz-VER and" \
		"/usr/src/linux-headers-VER installed" >&2
	exit 1
fi
if [ "${1:-}" = --cc ]; then
	# CONFIG_CC_VERSION_TEXT="gcc-12 (Debian 12.2.0-14) 12.2.0"
	sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' \
		"/usr/src/linux-headers-$ver/.config"
else
	echo "$ver"
fi
