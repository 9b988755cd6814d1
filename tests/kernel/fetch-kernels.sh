#!/usr/bin/env bash
# The kernels the modules are built for and the test guests boot, fetched
# from the Debian archive (apt-get download) and unpacked into
# $BUILD/kernels/VER/, never installed: for each series named on the
# command line by its headers' metapackage (default: Debian 12's two,
# linux-headers-amd64 for 6.1 and linux-headers-6.12-amd64), the current
# version's headers (with their -common part and the linux-kbuild tools)
# and image, and the modules.dep that the image's postinst would make.
# tests/kernel/kver.sh finds them there.
#
# Why not install them: 6.12's headers depend on its image, and an image
# installed becomes the kernel the machine that runs `make check` boots
# next (update-grub takes the newest).  Each also cost an initramfs the
# guests never use: 2.7 of the 4 minutes of a fresh machine's set-up.
#
# Quiet when every kernel is there; exits non-zero when one cannot be had.
# Environment: BUILD (default build).
set -eu
cd "$(dirname "$0")/../.." || exit 1
PATH=$PATH:/usr/sbin:/sbin # depmod, for a user who is not root
BUILD=${BUILD:-build}
mkdir -p "$BUILD/kernels"
dest=$(cd "$BUILD/kernels" && pwd)
[ $# -gt 0 ] || set -- linux-headers-amd64 linux-headers-6.12-amd64

# candidate PACKAGE FIELD: the field of the version apt would install.
candidate() {
	apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n "s/^$2: //p" | head -n 1
}

# The package lists read again: they may be missing or stale.
update_lists() {
	if [ "$(id -u)" -eq 0 ]; then
		apt-get -q update >/dev/null 2>&1 || true
	else
		sudo apt-get -q update >/dev/null 2>&1 || true
	fi
}

# headers_of META: the versioned headers package META depends on.
headers_of() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-headers-.*\)$/\1/p' | head -n 1
}

# download DIR PACKAGE...: into DIR; with stale lists, read again once.
download() {
	local dir=$1
	shift
	(cd "$dir" && apt-get -q download "$@") >"$dir/log" 2>&1 && return 0
	update_lists
	(cd "$dir" && apt-get -q download "$@") >"$dir/log" 2>&1 && return 0
	cat "$dir/log" >&2
	return 1
}

# complete VER: is VER's tree whole?
complete() {
	local root=$dest/$1
	[ -e "$root/usr/src/linux-headers-$1/.config" ] &&
		[ -e "$root/boot/vmlinuz-$1" ] &&
		[ -e "$root/lib/modules/$1/modules.dep" ]
}

# fetch META: the series META names, if it is not there yet.
fetch() {
	local meta=$1 headers ver version deps pkgs tmp deb root
	headers=$(headers_of "$meta")
	if [ -z "$headers" ]; then
		update_lists
		headers=$(headers_of "$meta")
	fi
	if [ -z "$headers" ]; then
		echo "fetch-kernels.sh: $meta is not in the package lists" \
			"(apt-get update?)" >&2
		return 1
	fi
	ver=${headers#linux-headers-}
	complete "$ver" && return 0
	echo "fetching the kernel $ver (headers and image) for the test guests"
	version=$(candidate "$headers" Version)
	# Its -common headers and kbuild tools: each first alternative.
	deps=$(candidate "$headers" Depends | tr ',' '\n' |
		sed -n 's/^ *\(linux-\(headers\|kbuild\)-[^ |]*\).*/\1/p')
	pkgs=("$headers=$version" "linux-image-$ver=$version")
	for deb in $deps; do
		pkgs+=("$deb")
	done
	tmp=$(mktemp -d "$dest/.fetch.XXXXXX")
	root=$tmp/root
	mkdir "$root"
	if ! download "$tmp" "${pkgs[@]}"; then
		rm -rf "$tmp"
		return 1
	fi
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$root" || {
			rm -rf "$tmp"
			return 1
		}
	done
	# The headers include their -common half by its installed path.
	sed -i "s|^include /usr/src/|include $dest/$ver/usr/src/|" \
		"$root/usr/src/linux-headers-$ver/Makefile"
	if ! depmod -b "$root" "$ver"; then
		rm -rf "$tmp"
		return 1
	fi
	rm -rf "${dest:?}/$ver"
	mv "$root" "$dest/$ver"
	rm -rf "$tmp"
	if ! complete "$ver"; then
		echo "fetch-kernels.sh: ${pkgs[*]} did not make a whole kernel" \
			"$ver" >&2
		return 1
	fi
}

# Each series on its own core: unpacking is most of the time.
pids=()
for meta in "$@"; do
	fetch "$meta" &
	pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do
	wait "$pid" || rc=1
done
exit $rc
