#!/usr/bin/env bash
# tests/cli/kernel.sh: the kernel release as the user's knob (docs/engine.md,
# "Releases"; docs/scenario-format.md, "kernel, model and variants"):
# --kernel on run, export, report, compare and replay, the "kernel" key of a
# scenario, X.Y.Z as X.Y, unknown versions and contradicting models refused,
# explicit variants kept and named, the default release, and the kernel a
# replay takes from a trace's "# kernel:" line.
# $1 is the slublab program.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)

cat >"$TMP/ok.json" <<'JSON'
{"format": 1, "name": "ok", "caches": [{"name": "A", "object_size": 64}],
 "ops": [{"op": "alloc", "cpu": 0, "cache": "A", "name": "x"}, {"op": "free", "cpu": 0, "name": "x"}]}
JSON

# --- the default: the newest release, BARN_REFILL's after side off ---
sl run "$TMP/ok.json"
check "no kernel, no model: exit 0" [ "$status" -eq 0 ]
check "no kernel, no model: the newest release (7.3)" grep -q '^kernel 7.3$' "$TMP/out"
check "the default has BARN_REFILL=before" grep -q '^model 7.3, .*BARN_REFILL=before' "$TMP/out"

# --- --kernel: X.Y and X.Y.Z, each release's model ---
for k in 6.1 6.8 6.12 6.18 6.19 7.0 7.1 7.2 7.3; do
    sl run "$TMP/ok.json" --kernel "$k"
    check "--kernel $k: exit 0" [ "$status" -eq 0 ]
    check "--kernel $k: named" grep -q "^kernel $k\$" "$TMP/out"
done
# every shipped scenario on every release: it runs (its expects, written for
# its own release, may fail: exit 1), or, for prefilled sheaves before 6.18,
# is refused saying why (maple-prefill-kfree-rcu's 115,000 operations are left
# to its golden and to tests/cli/hybrid.sh); a race's schedule counts the steps
# of its own model, so on another model it may name a context that has
# finished: refused, naming the token
for k in 6.1 6.8 6.12 6.18 6.19 7.0 7.1 7.2 7.3; do
    for f in "$root"/scenarios/*.json; do
        case $f in */maple-prefill-kfree-rcu.json) continue ;; esac
        sl run "$f" --kernel "$k"
        if [ "$status" -le 1 ]; then
            check "$(basename "$f" .json) on $k: runs" grep -qE "^kernel $k( with .*)?\$" "$TMP/out"
        else
            check "$(basename "$f" .json) on $k: refused, saying why" \
                grep -qE 'has no sheaves; prefilled sheaves came with them|schedule token|hybrid model \(6.18-6.19\) has sheaves|races only on the legacy' "$TMP/err"
        fi
    done
done
sl run "$TMP/ok.json" --kernel 6.8
check "6.8 is legacy:ERA_DELAYED_FREEZE" grep -q '^model 6.8, .*CPU_PARTIAL_DIRECT_LOAD=before' "$TMP/out"
check "6.8 has no sheaves to count" not grep -q '^sheaf_alloc ' "$TMP/out"
sl run "$TMP/ok.json" --kernel 7.0
check "7.0 is sheaves with 7.2's changes still before" grep -q '^model 7.0, .*DEFERRED_FREELIST=before.*REFILL_RETURN=before' "$TMP/out"
check "7.0 refills for non-blocking gfp (fb1091febd66)" grep -q 'REFILL_NONBLOCKING=after' "$TMP/out"
sl run "$TMP/ok.json" --kernel 6.18
check "6.18 refills only when the gfp may block" grep -q 'REFILL_NONBLOCKING=before' "$TMP/out"
sl run "$TMP/ok.json" --kernel 6.12.57 --json
check "--kernel 6.12.57 is 6.12" grep -q '"kernel":"6.12"' "$TMP/out"
sl run "$TMP/ok.json" --model 6.12
cp "$TMP/out" "$TMP/model612"
sl run "$TMP/ok.json" --kernel 6.12
check "--model 6.12 and --kernel 6.12 are the same run" cmp -s "$TMP/out" "$TMP/model612"

# --- refused: unknown versions, contradicting models ---
for k in 6.13 5.10 7 seven 6.12.x 6.12-rc1; do
    sl run "$TMP/ok.json" --kernel "$k"
    check "--kernel $k: exit 2" [ "$status" -eq 2 ]
    check "--kernel $k: the releases listed" grep -qF '6.1, 6.8, 6.12, 6.18, 6.19, 7.0, 7.1, 7.2, 7.3' "$TMP/err"
done
sl run "$TMP/ok.json" --kernel 7.2 --model legacy
check "--kernel 7.2 --model legacy: exit 2" [ "$status" -eq 2 ]
check "--kernel 7.2 --model legacy: says why" grep -q 'model "legacy" contradicts kernel 7.2' "$TMP/err"
sl run "$TMP/ok.json" --kernel 6.12 --model legacy:ERA_DELAYED_FREEZE
check "--kernel 6.12 with another era: exit 2" [ "$status" -eq 2 ]
sl run "$TMP/ok.json" --kernel 6.12 --model legacy:ERA_DIRECT_LOAD
check "--kernel 6.12 with its own era: exit 0" [ "$status" -eq 0 ]
sl run "$TMP/ok.json" --kernel 7.3 --model 7.2
check "--kernel 7.3 --model 7.2: exit 2" [ "$status" -eq 2 ]

# --- the "kernel" key of a scenario ---
sed 's/"name": "ok",/"name": "ok", "kernel": "6.8.12",/' "$TMP/ok.json" >"$TMP/k68.json"
sl run "$TMP/k68.json"
check "\"kernel\": \"6.8.12\": exit 0" [ "$status" -eq 0 ]
check "\"kernel\": \"6.8.12\" is 6.8" grep -q '^kernel 6.8$' "$TMP/out"
sl run "$TMP/k68.json" --kernel 7.2
check "--kernel overrides the file's kernel" grep -q '^kernel 7.2$' "$TMP/out"
sed 's/"name": "ok",/"name": "ok", "kernel": "7.2", "model": "legacy",/' "$TMP/ok.json" >"$TMP/bad.json"
sl run "$TMP/bad.json"
check "kernel and a contradicting model in a file: exit 2" [ "$status" -eq 2 ]
check "kernel and a contradicting model in a file: says which key" grep -q 'key "kernel": model "legacy" contradicts kernel 7.2' "$TMP/err"
sed 's/"name": "ok",/"name": "ok", "kernel": "6.14",/' "$TMP/ok.json" >"$TMP/bad.json"
sl run "$TMP/bad.json"
check "an unknown kernel in a file: exit 2" [ "$status" -eq 2 ]
sed 's/"name": "ok",/"name": "ok", "kernel": "7.2", "variants": {"BARN_REFILL": "after"},/' \
    "$TMP/ok.json" >"$TMP/exp.json"
sl run "$TMP/exp.json"
check "explicit variants over a kernel: named" grep -q '^kernel 7.2 with BARN_REFILL=after$' "$TMP/out"
sl run "$TMP/exp.json" --kernel 7.3
check "explicit variants stay through --kernel" grep -q '^kernel 7.3 with BARN_REFILL=after$' "$TMP/out"
sl report "$TMP/exp.json"
check "report names the kernel and the change" grep -q '| kernel | 7.2 with BARN_REFILL=after' "$TMP/out"
sl export "$TMP/ok.json" --kernel 6.12 --slabinfo "$TMP/slabinfo"
check "export --kernel 6.12: exit 0" [ "$status" -eq 0 ]

# --- compare --kernel A,B: n/a for the counters one release lacks ---
sl compare "$TMP/ok.json" --kernel 6.12,7.2
check "compare --kernel 6.12,7.2: exit 0" [ "$status" -eq 0 ]
check "compare --kernel: the sides named" grep -q '^baseline: kernel 6.12' "$TMP/out"
check "compare --kernel: 6.12 lacks sheaf counters" grep -Eq '^sheaf_refill +n/a +[0-9]+' "$TMP/out"
check "compare --kernel: 7.2 lacks per-CPU slab counters" grep -Eq '^cpu_partial_alloc +[0-9]+ +n/a' "$TMP/out"
sl compare "$TMP/ok.json" --kernel 6.12,6.13
check "compare --kernel with an unknown release: exit 2" [ "$status" -eq 2 ]

# --- replay: the kernel from the trace's "# kernel:" line ---
slice="$root/tests/data/kmem-trace-slice.txt.gz"
gzip -dc "$slice" | awk 'NR == 4 { print "# kernel: 6.13.2-amd64" } { print }' >"$TMP/t613.txt"
gzip -dc "$slice" | awk 'NR == 4 { print "# kernel: 6.12.57+deb13-amd64" } { print }' >"$TMP/t612.txt"
sl replay "$TMP/t612.txt"
check "replay of a 6.12 trace: exit 0" [ "$status" -eq 0 ]
check "replay of a 6.12 trace: runs on 6.12 and says why" \
    grep -q '^kernel 6.12: the trace.s "# kernel:" line says Linux 6.12.57+deb13-amd64$' "$TMP/out"
sl replay "$TMP/t613.txt"
check "replay of a 6.13 trace: the release below, said so" \
    grep -q '^kernel 6.12: .*6.13.2-amd64, and this is the newest release modelled at or below it' "$TMP/out"
sl replay "$TMP/t613.txt" --kernel 7.0
check "replay --kernel overrides the trace's" grep -q '^kernel 7.0: --kernel 7.0' "$TMP/out"
sl replay "$slice"
check "replay of a trace without the line: the default, with a note" \
    grep -q '^kernel 7.3: the trace has no "# kernel:" line' "$TMP/out"
sl replay "$slice" --kernel 6.2
check "replay --kernel 6.2: exit 2" [ "$status" -eq 2 ]
check "record-kmem-trace writes the # kernel: line" grep -q '# kernel: $(uname -r)' "$root/scripts/record-kmem-trace"

# --- REFILL_NONBLOCKING: GFP_ATOMIC and an empty main sheaf (scenarios/refill-gate.json) ---
gate="$root/scenarios/refill-gate.json"
sl run "$gate"
check "refill-gate: its expects pass on 7.0" grep -q '^PASS atomic-done: A.alloc_slowpath == 0' "$TMP/out"
sl compare "$gate" --variant REFILL_NONBLOCKING --json
check "refill-gate: before, 8 GFP_ATOMIC allocations take the slow path" \
    grep -q '"metric":"alloc_slowpath","baseline":8,"patched":0' "$TMP/out"
sl run "$gate" --variant REFILL_NONBLOCKING=before --events
check "refill-gate before: one no_refill_noblock event per GFP_ATOMIC allocation" \
    [ "$(grep -c '"fn":"__pcs_replace_empty_main","label":"no_refill_noblock"' "$TMP/out")" -eq 8 ]
sl run "$gate" --variant REFILL_NONBLOCKING=before
check "refill-gate before: its expect fails (slow paths)" grep -q '^FAIL atomic-done: A.alloc_slowpath == 0' "$TMP/out"
# 6.19 gave sheaves only to a cache created with a sheaf_capacity: with one,
# its GFP_ATOMIC allocations skip the refill (the cpu slab serves them)
node -e "const f = require('fs'), s = JSON.parse(f.readFileSync(process.argv[1], 'utf8'));
s.caches[0].sheaf_capacity = 32; f.writeFileSync(process.argv[2], JSON.stringify(s));" "$gate" "$TMP/gate32.json"
sl run "$TMP/gate32.json" --kernel 6.19 --events
check "refill-gate on 6.19 with a sheaf_capacity: one no_refill_noblock per GFP_ATOMIC allocation" \
    [ "$(grep -c '"fn":"__pcs_replace_empty_main","label":"no_refill_noblock"' "$TMP/out")" -eq 8 ]
sl compare "$TMP/gate32.json" --kernel 6.19,7.0 --json
check "refill-gate: on 6.19 only the GFP_KERNEL allocation comes from a sheaf" \
    grep -q '"metric":"alloc_cpu_sheaf","baseline":1,"patched":0,"change_pct":null,"in_baseline":true,"in_patched":false' "$TMP/out"
check "refill-gate: 6.19's GFP_ATOMIC allocations went to the cpu slab, 7.0's to the refilled sheaf" \
    grep -q '"metric":"alloc_fastpath","baseline":37,"patched":9' "$TMP/out"
sl compare "$gate" --kernel 7.0,7.2 --json
check "refill-gate: 7.0 and 7.2 both refill for GFP_ATOMIC" \
    grep -q '"metric":"alloc_slowpath","baseline":0,"patched":0' "$TMP/out"
sed 's/"GFP_ATOMIC"/"__GFP_NOWARN"/' "$gate" >"$TMP/nospin.json"
sl run "$TMP/nospin.json" --events
check "a gfp that may not even spin: no_refill_nospin" \
    grep -q '"fn":"__pcs_replace_empty_main","label":"no_refill_nospin"' "$TMP/out"

finish
