#!/bin/sh
# check-layout.sh -- the #include graph of the rooms, and the rules it must keep.
#
# Every quoted #include of host/, kernels/, sim/, analysis/, bench/ and tests/
# is an edge from the including *module* (a file without its .c/.h: a header
# and its implementation are one node) to the included module.  Two things
# fail the check:
#
#   1. a cycle between modules (coreutils tsort finds it);
#   2. an include that crosses a room's rule (README.md, "Layout"):
#        kernels/  -> kernels/, host/device.h
#        sim/      -> sim/, host/device.h, analysis/arch.h
#        analysis/ -> analysis/, host/device.h, kernels/probe_layout.h
#        host/, bench/, tests/ -> anything
#
# `make check-layout` runs it; so does `make test`.  With -v it prints the
# graph (module -> module) it checked.  Exit 0: the layout holds; 1: it does
# not, with one line per cycle and per crossing include.
cd "$(dirname "$0")/.." || exit 2
verbose=0
[ "${1:-}" = "-v" ] && verbose=1

edges=$(mktemp) || exit 2
trap 'rm -f "$edges" "$edges.err"' EXIT

# file -> included path, normalized (a leading ../ resolved against the file's room)
for f in host/*.[ch] kernels/*.[ch] sim/*.[ch] analysis/*.[ch] bench/*.[ch] tests/*.[ch]; do
    [ -f "$f" ] || continue
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
    while read -r inc; do
        case "$inc" in
        ../*) inc=${inc#../} ;;
        */*) ;;
        *) inc="$(dirname "$f")/$inc" ;;
        esac
        printf '%s %s\n' "$f" "$inc"
    done
done >"$edges"

status=0

# Rule 2: what each room may include.
while read -r file inc; do
    room=${file%%/*}
    ok=1
    case "$room" in
    kernels) case "$inc" in kernels/*|host/device.h) ;; *) ok=0 ;; esac ;;
    sim) case "$inc" in sim/*|host/device.h|analysis/arch.h) ;; *) ok=0 ;; esac ;;
    analysis) case "$inc" in analysis/*|host/device.h|kernels/probe_layout.h) ;; *) ok=0 ;; esac ;;
    esac
    if [ $ok -eq 0 ]; then
        echo "layout: $file includes $inc: $room/ may not include it"
        status=1
    fi
    if [ ! -f "$inc" ]; then
        echo "layout: $file includes $inc, which does not exist"
        status=1
    fi
done <"$edges"

# Rule 1: no cycle between modules.  tsort reports each loop on stderr.
awk '{ a = $1; b = $2; sub(/\.[ch]$/, "", a); sub(/\.[ch]$/, "", b);
       if (a != b) print a, b }' "$edges" | sort -u >"$edges.mod"
if [ $verbose -eq 1 ]; then
    sed 's/ / -> /' "$edges.mod"
fi
tsort "$edges.mod" >/dev/null 2>"$edges.err"
if [ -s "$edges.err" ]; then
    # "tsort: -: input contains a loop:" then "tsort: MODULE" lines, per loop
    awk '/contains a loop/ { if (loop != "") print "layout: include cycle:" loop; loop = ""; next }
         { sub(/^tsort: /, ""); loop = loop " " $0 }
         END { if (loop != "") print "layout: include cycle:" loop }' "$edges.err"
    status=1
fi
rm -f "$edges.mod"

modules=$(awk '{print $1}' "$edges" | sort -u | wc -l)
if [ $status -eq 0 ]; then
    echo "layout: $(wc -l <"$edges") includes between $modules files: no cycle, no crossing"
fi
exit $status
