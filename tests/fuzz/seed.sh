#!/bin/sh
# seed.sh TARGET DIR -- the starting corpus of one fuzz target, into DIR:
# the bundled arch files and suites, the PTX every probe emits (GD_BIN, the
# plain build's gpudissect), a cubin from ptxas where it is installed, a small
# results directory from a sim run.  Existing files are kept (the corpus grows
# from run to run); the committed reproducers are passed to the fuzzer apart.
set -eu
t=$1
dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${GD_BIN:-$root/gpudissect}
mkdir -p "$dir"
probes() { "$bin" list 2>/dev/null | awk 'NF && $1 !~ /:$/ {print $1}'; }
case $t in
arch) cp "$root"/analysis/archs/*.arch "$dir"/ ;;
set)
    printf 'L1D.ways=8\n' >"$dir/ways"
    printf 'noise.jitter=3\nnoise.outlier_rate=0.005\nnoise.outlier_cycles=800\n' >"$dir/noise"
    printf 'gpu.sms=4\nL2.size=32KiB\nL1D.reorder=true\nL1D.fifo_tail_ports=2\n' >"$dir/mixed" ;;
suite) for f in "$root"/bench/suites/*.suite; do cp "$f" "$dir/$(basename "$f")"; done ;;
expr)
    grep -ho -- '--[a-z]* [^ ]*' "$root"/bench/suites/*.suite | awk '{print $2}' | sort -u |
        tr ':' '\n' | sort -u | awk 'NF {f=sprintf("%s/e%d", d, NR); printf "%s", $0 > f}' d="$dir" ;;
sweep)
    printf '32\n1KiB:8MiB\n' >"$dir/doubling"
    printf '64\n1KiB:64KiB:+1KiB\n' >"$dir/linear"
    printf '1\n8:1KiB:16\n' >"$dir/steps" ;;
ptx | sim)
    for p in $(probes); do "$bin" emit --probe "$p" >"$dir/$p.ptx" 2>/dev/null || rm -f "$dir/$p.ptx"; done ;;
cubin)
    ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
    if [ -x "$ptxas" ]; then
        "$bin" emit --probe pchase | sed 's/\.entry [a-zA-Z0-9_]*/.entry k/' >"$dir/.k.ptx"
        "$ptxas" -arch=sm_75 -o "$dir/pchase.cubin" "$dir/.k.ptx" 2>/dev/null || true
        rm -f "$dir/.k.ptx"
    fi ;;
results)
    run=$(mktemp -d)
    "$bin" run --device sim:tiny --probe pchase --sweep 1KiB:32KiB --out "$run/r" --quiet >/dev/null
    { cat "$run/r/meta.json"; echo '%%'; cat "$run/r/pchase.csv"; echo '%%';
      printf '{"levels":[{"name":"L1D","size_bytes":2048,"latency_cycles":20},{"name":"L2","size_bytes":16384,"latency_cycles":90}]}\n'; } >"$dir/tiny-run"
    rm -rf "$run" ;;
probe) for p in $(probes); do printf 'probe=%s\n' "$p" >"$dir/$p"; done ;;
*) echo "seed.sh: unknown target $t" >&2; exit 2 ;;
esac
