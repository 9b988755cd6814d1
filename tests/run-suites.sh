#!/usr/bin/env bash
# Runs each test suite named on the command line as `make suite-NAME`, shows
# its output, and sums every "NAME: N passed, N failed[, N skipped]" line it
# printed.  A suite that fails without printing such a line counts as one
# failure.  Ends with one line "N passed, N failed[, N skipped]" and exits
# non-zero when anything failed.
set -u
make=${MAKE:-make}
logdir=${BUILD:-build}/logs
mkdir -p "$logdir"
pass=0 fail=0 skip=0
re='^[A-Za-z0-9_.+-]+: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'
for suite in "$@"; do
	log=$logdir/$suite.log
	echo "=== suite $suite"
	start=$(date +%s)
	$make --no-print-directory -s "suite-$suite" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	counted=0
	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then
			pass=$((pass + BASH_REMATCH[1]))
			fail=$((fail + BASH_REMATCH[2]))
			skip=$((skip + ${BASH_REMATCH[4]:-0}))
			counted=1
		fi
	done <"$log"
	if [ "$rc" -ne 0 ] && [ "$counted" -eq 0 ]; then
		echo "suite $suite failed (exit $rc) without a summary line"
		fail=$((fail + 1))
	fi
	echo "=== suite $suite took $(($(date +%s) - start)) s"
done
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
