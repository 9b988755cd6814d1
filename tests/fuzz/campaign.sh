#!/bin/sh
# One fuzzing campaign (make fuzz): campaign.sh TARGET FUZZ_DIR SECONDS ARGS.
# Fuzzes FUZZ_DIR/fuzz_TARGET for SECONDS from its seeds in the repository
# into a scratch corpus, merges what adds coverage back into the seeds, and
# prints one summary line.  Exits non-zero on a crash.
set -u
target=$1 dir=$2 secs=$3 args=$4
here=$(dirname "$0")
case $target in
request) seeds=$here/corpus ;;
*) seeds=$here/corpus_$target ;;
esac
bin=$dir/fuzz_$target
work=$dir/campaign_$target
log=$dir/campaign_$target.log
rm -rf "$work" && mkdir -p "$work"
before=$(ls "$seeds" | wc -l)
# shellcheck disable=SC2086 # ARGS are libFuzzer's flags, one word each
"$bin" $args -max_total_time="$secs" -print_final_stats=1 \
	"$work" "$seeds" >"$log" 2>&1
rc=$?
# The last status line: "#RUNS ... cov: EDGES ft: FEATURES corp: ..."
status=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
cov=$(printf '%s\n' "$status" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
ft=$(printf '%s\n' "$status" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
if [ $rc -ne 0 ]; then
	tail -n 40 "$log"
	input=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
	echo "fuzz $target: FOUND a failure after ${runs:-?} runs;" \
	     "input ${input:-none} (log $log)"
	exit 1
fi
# shellcheck disable=SC2086
"$bin" $args -merge=1 "$seeds" "$work" >"$log.merge" 2>&1 || {
	tail -n 20 "$log.merge"
	echo "fuzz $target: the merge into $seeds failed"
	exit 1
}
after=$(ls "$seeds" | wc -l)
echo "fuzz $target: ${secs} s, ${runs:-?} runs" \
     "($(( ${runs:-0} / (secs > 0 ? secs : 1) )) per second)," \
     "coverage ${cov:-?} edges, ${ft:-?} features, no failure;" \
     "corpus $before -> $after inputs in $seeds"
