#!/bin/sh
# check-layout.sh -- the #include graph of the rooms, and the rules it must keep.
#
# Every quoted #include of host/, kernels/, sim/, analysis/, bench/ and tests/
# is an edge from the including *module* (a file without its .c/.h: a header
# and its implementation are one node) to the included module.  With the
# objects of a build (GD_BUILD_DIR, default build/), every call or reference
# from one object to a symbol another object defines is an edge too: who calls
# whom, whatever header declared it.  Three things fail the check:
#
#   1. a cycle between modules in the include graph (coreutils tsort finds it);
#   2. an include that crosses a room's rule (README.md, "Layout"):
#        kernels/  -> kernels/, host/device.h (kernels/workloads/ is part of kernels/)
#        sim/      -> sim/, host/device.h, analysis/arch.h
#        analysis/ -> analysis/, host/device.h, kernels/probe_layout.h
#        host/, bench/, tests/ -> anything
#   3. a cycle in the call graph between modules, with two named exceptions,
#      each checked as one node (so nothing outside may close a cycle through
#      it): the simulator's engine (sim/gpu, engine, cta, memsys, lsu, l1d, fetch, constant,
#      l2_slice, l1d_store, l2_store, tlb, dram, pcm,
#      exec -- the units of one cycle-level model, which hand work to each other
#      in both directions every cycle, declared together in sim/engine.h) and
#      its PTX front end (sim/ptx_parse, ptx_insn -- a statement parser and the
#      instruction parser it calls, which looks names up in the statement's
#      tables).
#
# `make check-layout` runs it; so does `make test`.  With -v it prints the
# graphs (module -> module) it checked.  Exit 0: the layout holds; 1: it does
# not, with one line per cycle and per crossing include.
cd "$(dirname "$0")/.." || exit 2
verbose=0
[ "${1:-}" = "-v" ] && verbose=1

edges=$(mktemp) || exit 2
trap 'rm -f "$edges" "$edges.err" "$edges.def" "$edges.use" "$edges.calls"' EXIT

# file -> included path, normalized (a leading ../ resolved against the file's room)
for f in host/*.[ch] kernels/*.[ch] kernels/workloads/*.[ch] sim/*.[ch] analysis/*.[ch] bench/*.[ch] tests/*.[ch]; do
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

# Rule 3: the call graph, from the objects' defined and undefined symbols.
build=${GD_BUILD_DIR:-build}
objs=$(ls "$build"/host/*.o "$build"/kernels/*.o "$build"/kernels/workloads/*.o "$build"/sim/*.o "$build"/analysis/*.o 2>/dev/null |
       grep -v '/host/main\.o$')
if [ -z "$objs" ]; then
    echo "layout: no objects under $build/: call graph not checked (build first)"
else
    group() { # the node a module is checked as
        case "$1" in
        sim/gpu|sim/engine|sim/cta|sim/memsys|sim/lsu|sim/l1d|sim/l1d_store|sim/l2_store|sim/fetch|sim/constant|sim/exec|sim/l2_slice|sim/tlb|sim/dram|sim/pcm) echo sim/engine ;;
        sim/ptx_parse|sim/ptx_insn) echo sim/ptx_front ;;
        *) echo "$1" ;;
        esac
    }
    : >"$edges.def"
    : >"$edges.use"
    for o in $objs; do
        m=${o#"$build"/}
        m=$(group "${m%.o}")
        nm --defined-only -g "$o" | awk -v m="$m" 'NF == 3 { print $3, m }' >>"$edges.def"
        nm -u "$o" | awk -v m="$m" '{ print $NF, m }' >>"$edges.use"
    done
    sort -o "$edges.def" "$edges.def"
    sort -o "$edges.use" "$edges.use"
    join "$edges.use" "$edges.def" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$edges.calls"
    if [ $verbose -eq 1 ]; then
        sed 's/ / calls /' "$edges.calls"
    fi
    tsort "$edges.calls" >/dev/null 2>"$edges.err"
    if [ -s "$edges.err" ]; then
        awk '/contains a loop/ { if (loop != "") print "layout: call cycle:" loop; loop = ""; next }
             { sub(/^tsort: /, ""); loop = loop " " $0 }
             END { if (loop != "") print "layout: call cycle:" loop }' "$edges.err"
        status=1
    fi
    calls=$(wc -l <"$edges.calls")
    rm -f "$edges.def" "$edges.use" "$edges.calls"
fi

modules=$(awk '{print $1}' "$edges" | sort -u | wc -l)
if [ $status -eq 0 ]; then
    echo "layout: $(wc -l <"$edges") includes between $modules files, ${calls:-no} calls between modules: no cycle, no crossing"
fi
exit $status
