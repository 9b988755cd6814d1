#!/usr/bin/env bash
# The Debian kernels the modules can be built for and the guest can boot:
# those with their headers (usr/src/linux-headers-VER), image
# (boot/vmlinuz-VER) and modules (lib/modules/VER) under one root, either
# the machine's own (installed) or $BUILD/kernels/VER/ (unpacked there by
# tests/kernel/fetch-kernels.sh).
#   kver.sh                the newest one's version
#   kver.sh --all          every one's, oldest first, one a line
#   kver.sh --cc [VER]     the compiler VER's headers were built with (e.g.
#                          gcc-12 for 6.1, x86_64-linux-gnu-gcc-12 for
#                          6.12); VER defaults to the newest
#   kver.sh --headers VER  the directory of VER's headers (for make -C)
#   kver.sh --image VER    the path of VER's kernel image
#   kver.sh --modules VER  the directory of VER's modules (modules.dep...)
# Never `uname -r`: that is the host's kernel, not the one the guest boots.
# Environment: BUILD (default build, under the repository's root).
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in
/*) ;;
*) build=$repo/$build ;;
esac

# root VER: the root holding the whole of VER ("" for /), or fails.
root() {
	local r
	for r in "" "$build/kernels/$1"; do
		if [ -e "$r/usr/src/linux-headers-$1/.config" ] &&
			[ -e "$r/boot/vmlinuz-$1" ] &&
			[ -e "$r/lib/modules/$1/modules.dep" ]; then
			echo "$r"
			return 0
		fi
	done
	echo "kver.sh: no kernel $1 with its headers, image and modules" >&2
	return 1
}

# A module's build needs only the headers.
if [ -n "${2:-}" ]; then
	case $1 in
	--cc | --headers)
		for r in "" "$build/kernels/$2"; do
			dir=$r/usr/src/linux-headers-$2
			[ -e "$dir/.config" ] || continue
			if [ "$1" = --headers ]; then
				echo "$dir"
			else
				# CONFIG_CC_VERSION_TEXT="gcc-12 (Debian 12.2.0-14) 12.2.0"
				sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' \
					"$dir/.config"
			fi
			exit 0
		done
		echo "kver.sh: no headers of the kernel $2" >&2
		exit 1
		;;
	--image | --modules)
		r=$(root "$2") || exit 1
		if [ "$1" = --image ]; then
			echo "$r/boot/vmlinuz-$2"
		else
			echo "$r/lib/modules/$2"
		fi
		exit 0
		;;
	esac
fi

all=$(for config in /usr/src/linux-headers-*/.config \
	"$build"/kernels/*/usr/src/linux-headers-*/.config; do
	v=${config%/.config}
	v=${v##*/linux-headers-}
	[ -e "$config" ] && root "$v" >/dev/null 2>&1 && echo "$v"
done | sort -uV)
if [ -z "$all" ]; then
	echo "kver.sh: no kernel with its headers, image and modules, installed" \
		"or fetched (tests/kernel/fetch-kernels.sh)" >&2
	exit 1
fi
case ${1:-} in
--all)
	echo "$all"
	;;
--cc)
	exec "$0" --cc "$(tail -n 1 <<<"$all")"
	;;
*)
	tail -n 1 <<<"$all"
	;;
esac
