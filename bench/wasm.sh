#!/usr/bin/env bash
# Size and speed of the engine in WebAssembly (docs/wasm.md):
#   bench/wasm.sh [SCENARIO] [RUNS]
# prints build/wasm/slublab-run.wasm's size raw and gzipped (-9), and the
# best of RUNS (default 5) wall times of `run SCENARIO` (default the largest
# shipped scenario, maple-prefill-kfree-rcu) natively and under node's WASI,
# the latter also without node's start and the module's compilation.
# Needs scripts/build with the wasm toolchain (build/wasm/).
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:-scenarios/maple-prefill-kfree-rcu.json}
runs=${2:-5}
wasm=build/wasm/slublab-run.wasm
[[ -f $wasm && -x build/slublab ]] || { echo "bench/wasm.sh: build $wasm and build/slublab first (scripts/build)" >&2; exit 1; }

raw=$(stat -c %s "$wasm")
gz=$(gzip -9c "$wasm" | wc -c)
awk -v r="$raw" -v g="$gz" 'BEGIN { printf "slublab-run.wasm: %d bytes (%.1f KiB) raw, %d bytes (%.1f KiB) gzip -9\n", r, r / 1024, g, g / 1024 }'

now() { date +%s%N; }
best_native=0 best_wasm=0 best_run=0
for ((i = 0; i < runs; i++)); do
    t0=$(now)
    build/slublab run "$scenario" --events >/dev/null
    t1=$(now)
    SLUBLAB_WASI_TIME=1 node --no-warnings tests/wasm/wasi-run.mjs "$wasm" run "$scenario" --events \
        2>/tmp/wasm-bench.$$ >/dev/null
    t2=$(now)
    run_ms=$(sed -n 's/.*run \([0-9.]*\) ms.*/\1/p' /tmp/wasm-bench.$$)
    n=$(((t1 - t0) / 1000000)) w=$(((t2 - t1) / 1000000)) r=${run_ms%.*}
    ((best_native == 0 || n < best_native)) && best_native=$n
    ((best_wasm == 0 || w < best_wasm)) && best_wasm=$w
    ((best_run == 0 || r < best_run)) && best_run=$r
done
rm -f /tmp/wasm-bench.$$
awk -v s="$(basename "$scenario" .json)" -v k="$runs" -v n="$best_native" -v w="$best_wasm" -v r="$best_run" \
    'BEGIN { printf "%s --events, best of %d: native %d ms; wasm %d ms (node and compilation included), %d ms running (%.2fx native)\n", s, k, n, w, r, r / (n ? n : 1) }'
