#!/usr/bin/env bash
# slublab compare says when its table of 0% means nothing: a variant
# that does not change the scenario's model (CPU_PARTIAL_DIRECT_LOAD on a
# sheaves scenario), or two runs that are identical; and says nothing when
# the runs differ.  Its plain table is what a reviewer pastes: a delta
# column, rows 0 in both runs and counters the kernels lack left out and
# counted, notes on counters that count other paths across releases; a
# variant is named in any case, and a typo is answered with the list.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
field() { # field KEY: a top-level field of $TMP/out's JSON
    node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1]))[process.argv[2]])' "$TMP/out" "$1"
}

sl compare "$root/scenarios/free-storm.json" --variant CPU_PARTIAL_DIRECT_LOAD
check "compare exits 0" test "$status" -eq 0
check "the table warns that the variant is the legacy model's" \
    grep -q '^warning:  CPU_PARTIAL_DIRECT_LOAD does not change what the sheaves model does' "$TMP/out"
check "... and that the two runs are identical" grep -q 'the two runs are identical' "$TMP/out"

sl compare "$root/scenarios/free-storm.json" --variant CPU_PARTIAL_DIRECT_LOAD --json
check "--json is JSON" json_doc "$TMP/out"
check "--json: identical" test "$(field identical)" = true
check "--json: the warning" grep -q '"warning":"CPU_PARTIAL_DIRECT_LOAD does not change' "$TMP/out"

sl compare "$root/scenarios/free-storm.json" --variant CPU_PARTIAL_DIRECT_LOAD --md
check "--md: the warning" grep -q '^> \*\*Warning:\*\* CPU\\_PARTIAL\\_DIRECT\\_LOAD does not change' "$TMP/out"

# a variant of the model that makes no difference to this scenario
sl compare "$root/scenarios/free-storm.json" --variant BARN_REFILL --json
check "BARN_REFILL on free-storm: identical" test "$(field identical)" = true
check "... said so" grep -q '"warning":"the two runs are identical (the same 113 operations and 253 events)' "$TMP/out"

# runs that differ: no warning
sl compare "$root/scenarios/fresh-slab-fill.json" --variant DEFERRED_FREELIST --json
check "DEFERRED_FREELIST on fresh-slab-fill: not identical" test "$(field identical)" = false
check "... and no warning" test "$(field warning)" = null
sl compare "$root/scenarios/fresh-slab-fill.json" --variant DEFERRED_FREELIST
check "the table has no warning line" not grep -q '^warning:' "$TMP/out"
sl compare "$root/scenarios/legacy-vs-sheaves.json" --model legacy,sheaves --json
check "across models: no warning" test "$(field warning)" = null

# the plain table a reviewer pastes: compare --json's rows, less those 0 in
# both runs and the counters neither kernel has, each with its delta
sl compare "$root/scenarios/barn-refill.json" --variant BARN_REFILL --json && cp "$TMP/out" "$TMP/rows.json"
sl compare "$root/scenarios/barn-refill.json" --variant BARN_REFILL
cp "$TMP/out" "$TMP/table"
node -e '
const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
const ch = (r) => r.change_pct === null ? (r.baseline ? "-" : "new") : r.change_pct === 0 ? "0%"
  : `${r.change_pct > 0 ? "+" : ""}${Math.abs(r.change_pct) >= 0.05 ? r.change_pct.toFixed(1) : r.change_pct}%`;
for (const r of d.rows) if (r.baseline || r.patched) {
  const delta = r.patched - r.baseline;
  console.log([r.metric, r.baseline, r.patched, delta > 0 ? `+${delta}` : `${delta}`, ch(r)].join(" "));
}' "$TMP/rows.json" >"$TMP/want"
grep -E '^[a-z_]+ +[0-9]+ +[0-9]+ ' "$TMP/table" | tr -s ' ' >"$TMP/got"
check "the table is compare --json's non-zero rows, with delta and change" diff "$TMP/want" "$TMP/got"
check "the table has a delta column" grep -Eq '^metric +baseline +patched +delta +change$' "$TMP/table"
# a sheaves kernel has 17 counters fewer than the engine counts (the legacy ones)
zeros=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).rows.filter((r) => !r.baseline && !r.patched).length)' "$TMP/rows.json")
check "rows 0 in both runs are left out, and counted" \
    grep -q "^Left out: $((zeros - 17)) counters that are 0 in both runs, 17 that neither kernel has (no sysfs file)\.$" "$TMP/table"
check "a 7.3 kernel's table has no legacy-only counter" not grep -Eq '^(free_frozen|deactivate_|cpu_partial_)' "$TMP/table"
check "\"-\" is never a zero baseline" not grep -Eq ' -$' "$TMP/table"

# across releases: the counters that count other paths carry a note
sl compare "$root/scenarios/barn-refill.json" --kernel 6.18,7.3
check "--kernel 6.18,7.3: alloc_fastpath is marked" grep -Eq '^alloc_fastpath +[0-9]+ +[0-9]+ +[-+0-9]+ +[-+0-9.%a-z]+ \[[0-9]\]$' "$TMP/out"
check "... and the note says what it counts on each" grep -q '^\[[0-9]\] alloc_fastpath counts objects taken from the CPU slab' "$TMP/out"

# variant names: any case; a typo lists the variants and offers the nearest
sl compare "$root/scenarios/barn-refill.json" --variant barn_refill
check "--variant barn_refill: exit 0" test "$status" -eq 0
check "... named as the kernel spells it" grep -q '^baseline: BARN_REFILL=before$' "$TMP/out"
sl compare "$root/scenarios/barn-refill.json" --variant BARN_REFIL
check "--variant BARN_REFIL: exit 2" test "$status" -eq 2
check "... did you mean BARN_REFILL, and the list" \
    grep -q 'unknown variant "BARN_REFIL": did you mean "BARN_REFILL"? The variants are: DEFERRED_FREELIST, BARN_REFILL, ' "$TMP/err"
finish
