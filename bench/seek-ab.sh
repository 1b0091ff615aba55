#!/usr/bin/env bash
# bench/seek-ab.sh: seeks in a big trace session, two programs alternated in
# one run on the same trace (docs/benchmarks.md, "Seeks in a big trace: two
# builds").
#
#   OLD_BIN=/tmp/old-build/slublab bench/seek-ab.sh [TRACE] [ROUNDS]
#
# TRACE (default: a 4,000,000-event trace made by bench/gen-kmem-trace.py,
# kept in ${TMPDIR:-/tmp}/slublab-big-trace) is stored once by OLD_BIN
# (`slublab replay --db`: the op log, the same for both); then ROUNDS times
# (default 1) OLD_BIN and SLUBLAB_BIN (default build/slublab) each serve
# their own copy of that database through bench/big-trace-seeks.mjs
# ($SEEKS seeks, default 1,000, each followed by a step timed apart;
# --session-memory $SESSION_MB, default 768): seek, first step after a seek
# and step p50/p99, the server's peak RSS, and the database's bytes per
# million events once the server has written its images; then a restarted
# server's seeks, which load those images.
set -uo pipefail
cd "$(dirname "$0")/.."
new=${SLUBLAB_BIN:-build/slublab}
old=${OLD_BIN:?OLD_BIN names the program to compare with}
dir=${TMPDIR:-/tmp}/slublab-big-trace
mkdir -p "$dir"
trace=${1:-}
[[ -n $trace ]] || trace=$dir/trace-4000000.txt
rounds=${2:-1}
session_mb=${SESSION_MB:-768}
[[ -s $trace ]] || python3 bench/gen-kmem-trace.py 4000000 >"$trace" || exit 1
base=$dir/seek-ab.db
rm -f "$base" "$base"-* "$dir"/seek-ab-*.rows
"$old" replay "$trace" --db "$base" >"$dir/seek-ab.out" 2>&1 || { tail -n 3 "$dir/seek-ab.out"; exit 1; }
events=$(grep -oE '[0-9]+ events\)' "$dir/seek-ab.out" | grep -oE '[0-9]+')
echo "Trace: $events events."
echo
echo "| round | program | open | seek p50/p99 | step p50/p99 | server RSS | images | reopen | seek p50/p99 after | server RSS after | first step after a seek p50/p99 | DB bytes per million events |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for ((i = 1; i <= rounds; i++)); do
    for which in old new; do
        bin=$old
        [[ $which == new ]] && bin=$new
        db=$dir/seek-ab-$which.db
        rm -f "$db" "$db"-*
        cp "$base" "$db"
        lat=$(AFTER_STEP=1 node bench/big-trace-seeks.mjs "$bin" "$db" --session-memory "$session_mb" \
            --memory-mb $((session_mb * 2)) 2>"$dir/seek-ab.err" || echo "failed: $(tail -n 1 "$dir/seek-ab.err")")
        size=$(awk -v b="$(stat -c %s "$db")" -v e="$events" 'BEGIN { printf "%.1f MB", b / e }')
        echo "| $i | $which | $lat | $size |" | tee -a "$dir/seek-ab-$which.rows"
        rm -f "$db" "$db"-*
    done
done
# with several rounds, each program's median row: every figure the median of
# the rounds' figures in its place (a failed round leaves the median out)
if ((rounds > 1)); then
    for which in old new; do
        node -e '
            const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")
                .map((l) => l.split(" | ").slice(2).join(" | "));
            const nums = rows.map((r) => r.match(/[0-9]+(\.[0-9]+)?/g) || []);
            const n = nums[0].length;
            if (!nums.every((x) => x.length === n)) process.exit(0);
            const med = (i) => { const v = nums.map((x) => Number(x[i])).sort((a, b) => a - b); return v[(v.length - 1) >> 1]; };
            let k = 0;
            const dec = (s) => (s.includes(".") ? s.split(".")[1].length : 0);
            console.log(`| median | ${process.argv[2]} | ` + rows[0].replace(/[0-9]+(\.[0-9]+)?/g, (m) => med(k++).toFixed(dec(m))));
        ' "$dir/seek-ab-$which.rows" "$which"
    done
fi
rm -f "$dir"/seek-ab-*.rows
