#!/usr/bin/env bash
# What the kernel suite needs from the host, made before it starts (as the
# suite "kernel-build", which `make check` runs niced beside the
# integration suites): Debian's kernels fetched (tests/kernel/fetch-kernels.sh),
# khttpd.ko and kecho.ko built for each kernel there (tests/kernel/kver.sh
# --all), W=1 and -Werror, and any warning of modpost too, and the static
# sehttpd every guest takes.  Prints "kernel-build: N passed, N failed";
# exits non-zero on any failure.
# Environment: BUILD, MAKE.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
export BUILD MAKE
. tests/checks.sh

work=$(mktemp -d /tmp/khttpd-build.XXXXXX)
trap 'rm -rf "$work"' EXIT
tests/kernel/fetch-kernels.sh || check "Debian's kernels fetched" 1
mapfile -t kvers < <(tests/kernel/kver.sh --all)
if [ "${#kvers[@]}" -eq 0 ]; then
	check "a kernel with its image and headers" 1
	echo "kernel-build: $pass passed, $fail failed"
	exit 1
fi

for kver in "${kvers[@]}"; do
	log=$work/build-$kver.log
	if ! "$MAKE" --no-print-directory -j"$(nproc)" KERNEL_VERSION="$kver" \
		"$BUILD/modules/$kver/khttpd.ko" \
		"$BUILD/modules/$kver/kecho.ko" >"$log" 2>&1; then
		cat "$log"
		check "khttpd.ko and kecho.ko build for $kver (W=1, -Werror)" 1
	elif grep -i 'warning' "$log"; then
		check "khttpd.ko and kecho.ko build for $kver without warnings" 1
	else
		check "khttpd.ko and kecho.ko build for $kver without warnings" 0
	fi
done
# What every guest takes from the host, built once before they race to.
if ! "$MAKE" --no-print-directory BUILD="$BUILD/static" \
	OPTFLAGS='-O2 -g -static' "$BUILD/static/sehttpd" \
	>"$work/static.log" 2>&1; then
	tail -n 20 "$work/static.log"
	check "a static sehttpd for the guests builds" 1
fi
echo "kernel-build: $pass passed, $fail failed"

[ "$fail" -eq 0 ]
