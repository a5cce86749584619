#!/bin/sh
# campaign.sh RUNS MAX_SECONDS LANE_A LANE_B -- the fuzz campaign of the README:
# every target up to RUNS executions or MAX_SECONDS (whichever first), niced,
# two lanes in parallel (each a quoted list of targets, run one after the
# other), on the corpus of build-fuzz/corpus/TARGET.  Afterwards one line per
# target in build-fuzz/campaign/summary: executions, seconds, corpus files and
# bytes, crashes (build-fuzz/crashes/TARGET-*).  Needs `make fuzz-build`.
set -u
runs=$1
max=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build-fuzz/campaign
mkdir -p "$out" build-fuzz/crashes
lane() {
    for t in $1; do
        d=tests/fuzz/dict/$t.dict
        [ -f "$d" ] || d=tests/fuzz/dict/ptx.dict
        mkdir -p build-fuzz/corpus/$t
        GD_BIN=./gpudissect tests/fuzz/seed.sh "$t" build-fuzz/corpus/$t
        start=$(date +%s)
        nice -n 10 build-fuzz/fuzz_$t -runs="$runs" -max_total_time="$max" -timeout=20 \
            -rss_limit_mb=3072 -max_len=65536 -dict="$d" -print_final_stats=1 \
            -artifact_prefix=build-fuzz/crashes/$t- build-fuzz/corpus/$t tests/fuzz/regress/$t \
            >"$out/$t.log" 2>&1
        rc=$?
        secs=$(( $(date +%s) - start ))
        execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$out/$t.log")
        files=$(ls build-fuzz/corpus/$t | wc -l)
        bytes=$(du -sb build-fuzz/corpus/$t | awk '{print $1}')
        crashes=$(ls build-fuzz/crashes/ | grep -c "^$t-" || true)
        echo "$t execs=${execs:-?} seconds=$secs corpus_files=$files corpus_bytes=$bytes crashes=$crashes rc=$rc" >>"$out/summary"
    done
}
: >"$out/summary"
lane "$3" &
lane "$4" &
wait
cat "$out/summary"
