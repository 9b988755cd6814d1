#!/usr/bin/env bash
# Runs each test suite named on the command line as `make suite-NAME`, shows
# its output, and sums every "NAME: N passed, N failed[, N skipped]" line it
# printed.  Suites joined by '+' (integration+integration-san) run side by
# side, each into its own log, shown whole once all of them are done: they
# spend most of their time waiting on the servers' timers, not the CPU.  A
# suite that fails without printing such a line counts as one failure.  Ends
# with one line "N passed, N failed[, N skipped]" and exits non-zero when
# anything failed.
set -u
make=${MAKE:-make}
logdir=${BUILD:-build}/logs
mkdir -p "$logdir"
pass=0 fail=0 skip=0
re='^[A-Za-z0-9_.+-]+: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'

# Adds up the summary lines of suite $1's log; $2 is its exit status.
count() {
	local suite=$1 rc=$2 counted=0 line
	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then
			pass=$((pass + BASH_REMATCH[1]))
			fail=$((fail + BASH_REMATCH[2]))
			skip=$((skip + ${BASH_REMATCH[4]:-0}))
			counted=1
		fi
	done <"$logdir/$suite.log"
	if [ "$rc" -ne 0 ] && [ "$counted" -eq 0 ]; then
		echo "suite $suite failed (exit $rc) without a summary line"
		fail=$((fail + 1))
	fi
}

for entry in "$@"; do
	IFS=+ read -ra group <<<"$entry"
	start=$(date +%s)
	if [ "${#group[@]}" -eq 1 ]; then
		suite=${group[0]}
		echo "=== suite $suite"
		$make --no-print-directory -s "suite-$suite" 2>&1 |
			tee "$logdir/$suite.log"
		count "$suite" "${PIPESTATUS[0]}"
		echo "=== suite $suite took $(($(date +%s) - start)) s"
		continue
	fi
	echo "=== suites ${group[*]}, side by side"
	pids=()
	for suite in "${group[@]}"; do
		$make --no-print-directory -s "suite-$suite" \
			>"$logdir/$suite.log" 2>&1 &
		pids+=($!)
	done
	for i in "${!group[@]}"; do
		wait "${pids[$i]}"
		rc=$?
		echo "=== suite ${group[$i]}"
		cat "$logdir/${group[$i]}.log"
		count "${group[$i]}" "$rc"
	done
	echo "=== suites ${group[*]} took $(($(date +%s) - start)) s"
done
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
