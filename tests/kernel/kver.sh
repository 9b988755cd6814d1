#!/usr/bin/env bash
# The Debian kernels installed with both their image (/boot/vmlinuz-VER)
# and their headers (/usr/src/linux-headers-VER), which the modules are
# built for and the guest boots:
#   kver.sh           the newest one's version
#   kver.sh --all     every one's, oldest first, one a line
#   kver.sh --cc [VER] the compiler VER's headers were built with (e.g.
#                     gcc-12 for 6.1, x86_64-linux-gnu-gcc-12 for 6.12);
#                     VER defaults to the newest
# Never `uname -r`: that is the host's kernel, not the one the guest boots.
set -eu
all=$(for img in /boot/vmlinuz-*; do
	v=${img#/boot/vmlinuz-}
	[ -e "/usr/src/linux-headers-$v/Makefile" ] && echo "$v"
done | sort -V)
if [ -z "$all" ]; then
	echo "kver.sh: no kernel with both /boot/vmlinuz-VER and" \
		"/usr/src/linux-headers-VER installed" >&2
	exit 1
fi
case ${1:-} in
--all)
	echo "$all"
	;;
--cc)
	ver=${2:-$(tail -n 1 <<<"$all")}
	# CONFIG_CC_VERSION_TEXT="gcc-12 (Debian 12.2.0-14) 12.2.0"
	sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' \
		"/usr/src/linux-headers-$ver/.config"
	;;
*)
	tail -n 1 <<<"$all"
	;;
esac
