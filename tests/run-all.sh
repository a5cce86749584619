#!/bin/sh
# Run each test binary given; print a summary; exit non-zero if any failed.
# GD_VALGRIND=1 runs them under valgrind (leaks and errors are failures).
status=0
passed=0
failed=""
for t in "$@"; do
    name=$(basename "$t")
    if [ -n "$GD_VALGRIND" ]; then
        valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
            "$t" >"/tmp/gd-test-$name.log" 2>&1
    else
        "$t" >"/tmp/gd-test-$name.log" 2>&1
    fi
    rc=$?
    if [ $rc -eq 0 ]; then
        passed=$((passed + 1))
        grep -h '^\(skipped\|SKIP\|\[  SKIPPED \]\|note:\)' "/tmp/gd-test-$name.log" | sed "s/^/  $name: /"
        echo "ok    $name"
    else
        status=1
        failed="$failed $name"
        cat "/tmp/gd-test-$name.log"
        echo "FAIL  $name (exit $rc)"
    fi
done
echo "tests: $passed passed${failed:+, failed:$failed}"
exit $status
