#!/usr/bin/env bash
# The kernel suite on every Debian kernel there (tests/kernel/kver.sh
# --all): 6.1 and 6.12, fetched first by tests/kernel/fetch-kernels.sh.
# Builds khttpd.ko and kecho.ko for each, W=1 and -Werror, and any warning
# of modpost too ("kernel-build: N passed, N failed"), then runs
# tests/kernel/run.sh on each kernel, the guests side by side: the newest
# one's lines as they come, then each other one's whole.  Exits non-zero on
# any failure.
# Environment: BUILD, MAKE, and what run.sh takes.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
export BUILD MAKE
. tests/checks.sh

work=$(mktemp -d /tmp/khttpd-all.XXXXXX)
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

# The newest kernel's lines show as they come; the others' after it.
rc=0
pids=()
for kver in "${kvers[@]::${#kvers[@]}-1}"; do
	[ -e "$BUILD/modules/$kver/khttpd.ko" ] || continue
	KVER=$kver tests/kernel/run.sh >"$work/run-$kver.out" 2>&1 &
	pids+=($!)
done
kver=${kvers[-1]}
if [ -e "$BUILD/modules/$kver/khttpd.ko" ]; then
	KVER=$kver tests/kernel/run.sh || rc=1
fi
for pid in "${pids[@]}"; do
	wait "$pid" || rc=1
done
for kver in "${kvers[@]::${#kvers[@]}-1}"; do
	[ -e "$work/run-$kver.out" ] && cat "$work/run-$kver.out"
done
[ "$fail" -eq 0 ] && exit "$rc"
exit 1
