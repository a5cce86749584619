#!/bin/sh
# Run each test binary given; print a line per test as it ends (with its wall
# time), a summary, and exit non-zero if any failed.
#
# GD_TEST_JOBS=N runs N tests at once (default: the number of online CPUs; the
# tests use private temporary directories, so they do not share files).  The
# slowest tests of the previous run (GD_BUILD_DIR/test-times; without one, as in
# a clean clone, tests/slowest-tests) start first, so the run ends about when
# its longest test does.  A failed test's log is
# printed whole after the summary line for it.
# GD_VALGRIND=1 runs them one at a time under valgrind (leaks and errors are
# failures).
jobs=${GD_TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
[ -n "$GD_VALGRIND" ] && jobs=1
times=${GD_BUILD_DIR:-build}/test-times
state=$(mktemp -d /tmp/gd-run-all.XXXXXX) || exit 1
trap 'rm -rf "$state"' EXIT
trap 'trap - INT TERM; kill -TERM 0 2>/dev/null; exit 130' INT TERM

# one test: its log, its exit status and its seconds under $state/NAME.*
run_one() {
    t=$1
    name=$(basename "$t")
    start=$(date +%s)
    if [ -n "$GD_VALGRIND" ]; then
        valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
            "$t" >"/tmp/gd-test-$name.log" 2>&1
    else
        "$t" >"/tmp/gd-test-$name.log" 2>&1
    fi
    rc=$?
    secs=$(( $(date +%s) - start ))
    echo "$secs $name" >"$state/$name.time"
    echo "$rc" >"$state/$name.rc"
    if [ "$rc" -eq 0 ]; then
        grep -h '^\(skipped\|SKIP\|\[  SKIPPED \]\|note:\)' "/tmp/gd-test-$name.log" | sed "s/^/  $name: /"
        echo "ok    $name (${secs} s)"
    else
        echo "FAIL  $name (exit $rc, ${secs} s): log in /tmp/gd-test-$name.log"
    fi
}

# the order: the previous run's slowest first, tests it did not see after;
# without a previous run (a clean clone), tests/slowest-tests' order
ordered=""
if [ -r "$times" ]; then
    names=$(sort -rn "$times" | awk '{print $2}')
else
    names=$(grep -v '^#' "$(dirname "$0")/slowest-tests" 2>/dev/null)
fi
if [ -n "$names" ]; then
    for name in $names; do
        for t in "$@"; do
            [ "$(basename "$t")" = "$name" ] && ordered="$ordered $t"
        done
    done
fi
for t in "$@"; do
    case " $ordered " in *" $t "*) ;; *) ordered="$ordered $t" ;; esac
done

started=0
for t in $ordered; do
    # at most $jobs at once (POSIX sh has no wait -n: count the ended ones)
    while [ $(( started - $(ls "$state" | grep -c '\.rc$') )) -ge "$jobs" ]; do
        sleep 0.2
    done
    run_one "$t" &
    started=$(( started + 1 ))
done
wait

status=0
passed=0
failed=""
for t in "$@"; do
    name=$(basename "$t")
    rc=$(cat "$state/$name.rc" 2>/dev/null || echo 1)
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
    else
        status=1
        failed="$failed $name"
        echo "---- $name (exit $rc) ----"
        cat "/tmp/gd-test-$name.log"
    fi
done
if [ -z "$GD_VALGRIND" ] && [ -d "$(dirname "$times")" ]; then
    cat "$state"/*.time >"$times.tmp.$$" 2>/dev/null && mv "$times.tmp.$$" "$times"
fi
echo "tests: $passed passed${failed:+, failed:$failed} ($jobs at a time)"
exit $status
