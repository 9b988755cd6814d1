#!/usr/bin/env bash
# The kernel suite on every Debian kernel there (tests/kernel/kver.sh
# --all: 6.1 and 6.12), once tests/kernel/build-all.sh has fetched them and
# built their modules: tests/kernel/run.sh on each kernel, the guests side
# by side, the newest one's lines as they come, then each other one's
# whole.  Exits non-zero on any failure.
# Environment: BUILD, MAKE, and what run.sh takes.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
export BUILD MAKE
. tests/checks.sh

work=$(mktemp -d /tmp/khttpd-all.XXXXXX)
trap 'rm -rf "$work"' EXIT
mapfile -t kvers < <(tests/kernel/kver.sh --all)
missing=0
for kver in "${kvers[@]}"; do
	[ -e "$BUILD/modules/$kver/khttpd.ko" ] || missing=1
done
if [ "${#kvers[@]}" -eq 0 ] || [ "$missing" -ne 0 ]; then
	check "every kernel fetched, its modules built (build-all.sh)" 1
	echo "kernel: $pass passed, $fail failed"
	exit 1
fi

# What every guest takes from the host, built (or found up to date) once
# before they race to: make suite-kernel without suite-kernel-build too.
if ! "$MAKE" --no-print-directory BUILD="$BUILD/static" \
	OPTFLAGS='-O2 -g -static' "$BUILD/static/sehttpd" \
	>"$work/static.log" 2>&1; then
	tail -n 20 "$work/static.log"
	check "a static sehttpd for the guests builds" 1
fi

# The newest kernel's lines show as they come; the others' after it.
rc=0
pids=()
for kver in "${kvers[@]::${#kvers[@]}-1}"; do
	KVER=$kver tests/kernel/run.sh >"$work/run-$kver.out" 2>&1 &
	pids+=($!)
done
KVER=${kvers[-1]} tests/kernel/run.sh || rc=1
for pid in "${pids[@]}"; do
	wait "$pid" || rc=1
done
for kver in "${kvers[@]::${#kvers[@]}-1}"; do
	cat "$work/run-$kver.out"
done
[ "$fail" -eq 0 ] && exit "$rc"
exit 1
