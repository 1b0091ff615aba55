#!/usr/bin/env bash
# tests/cli/run_output.sh: what `slublab run` and `slublab compare` print:
# the sysfs-style report, --json and --events (valid, keys in their fixed
# order, identical bytes on every run), --snapshot, expect results and exit
# statuses, warnings for misuse.  $1 is the slublab program.
. "$(dirname "$0")/lib.bash"

cat >"$TMP/s.json" <<'JSON'
{"format": 1, "name": "s", "title": "test", "seed": 7,
 "machine": {"cpus": 2, "nodes": 2, "cpu_node": [0, 1], "mem_mb_per_node": 16},
 "config": {"freelist_random": true},
 "caches": [{"name": "A", "object_size": 64}, {"name": "B", "object_size": 200, "flags": ["SLAB_HWCACHE_ALIGN"]}],
 "ops": [
   {"op": "alloc", "cpu": 0, "cache": "A", "name": "first"},
   {"op": "mark", "name": "one"},
   {"op": "repeat", "times": 70, "ops": [{"op": "alloc", "cpu": 1, "cache": "A", "name": "o{i}"}]},
   {"op": "alloc_bulk", "cpu": 0, "cache": "B", "count": 9, "name": "b"},
   {"op": "free", "cpu": 0, "name": "b[3]"},
   {"op": "free", "cpu": 1, "name": "b"},
   {"op": "kmalloc", "cpu": 1, "size": 100, "gfp": "GFP_KERNEL|__GFP_ZERO", "name": "k"},
   {"op": "kfree", "cpu": 0, "name": "k"},
   {"op": "repeat", "times": 70, "ops": [{"op": "free", "cpu": 0, "name": "o{i}"}, {"op": "mark", "name": "f{i}"}]},
   {"op": "flush_all", "cache": "A"},
   {"op": "shrink", "cache": "B"}
 ],
 "expect": [
   {"at": "one", "metric": "alloc_fastpath", "op": "==", "value": 1},
   {"at": "f69", "metric": "A.cpu1.alloc_fastpath", "op": "==", "value": 70},
   {"at": "end", "metric": "B.sheaf_capacity", "op": ">", "value": 0},
   {"at": "end", "metric": "A.alloc_fastpath", "op": "==", "value": 71}
 ]}
JSON

# ---- text report ----
sl run "$TMP/s.json"
check "run exits 0 when every expect passes" [ "$status" -eq 0 ]
check "report has a section per cache" grep -qx '/sys/kernel/slab/B/' "$TMP/out"
for f in object_size slab_size align objs_per_slab order min_partial sheaf_capacity \
    slabs objects partial objects_partial total_objects; do
    check "report has the $f file" grep -q "^$f [0-9]" "$TMP/out"
done
check "counters use show_stat format" grep -Eq '^alloc_fastpath [0-9]+( C[0-9]+=[0-9]+)+$' "$TMP/out"
check "NUMA slab-state files have N<node> parts" grep -Eq '^total_objects [0-9]+( N[0-9]+=[0-9]+)+$' "$TMP/out"
check "per-CPU sheaves are shown" grep -q '^cpu1 (node 1) sheaves: main ' "$TMP/out"
check "per-node barns are shown" grep -q '^node1 barn: full ' "$TMP/out"
check "expects are listed" grep -q '^PASS f69: A.cpu1.alloc_fastpath == 70 (got 70)$' "$TMP/out"
check "expect totals" grep -qx '4 passed, 0 failed' "$TMP/out"

# ---- --json ----
sl run "$TMP/s.json" --json
check "--json exits 0" [ "$status" -eq 0 ]
check "--json is one line" [ "$(wc -l <"$TMP/out")" -eq 1 ]
check "--json parses" json_doc "$TMP/out"
keys=$(json_keys "$TMP/out")
check "--json keys in order ($keys)" [ "$keys" = "scenario,variants,model,seed,caches,expects,warnings,ok" ]
check "--json ok is true" grep -q '"ok":true}$' "$TMP/out"
check "--json addresses are hex strings" grep -Eq '"random":"0x[0-9a-f]+"' "$TMP/out"

# ---- --events: deterministic JSON Lines ----
sl run "$TMP/s.json" --events
cp "$TMP/out" "$TMP/ev1"
sl run "$TMP/s.json" --events
check "--events exits 0" [ "$status" -eq 0 ]
check "--events prints the same bytes twice" cmp -s "$TMP/out" "$TMP/ev1"
check "--events lines all parse" json_lines "$TMP/out"
check "--events has many events" [ "$(wc -l <"$TMP/out")" -gt 100 ]
check "--events ends with the summary" grep -q '^{"summary":{"scenario":"s",' <(tail -n 1 "$TMP/out")
head -n 1 "$TMP/out" >"$TMP/first"
keys=$(json_keys "$TMP/first")
check "event keys in order ($keys)" [ "$keys" = "seq,op,cpu,node,cache,fn,label,moves,stats,report" ]
check "events number seq from 0" grep -q '^{"seq":0,' <(head -n 1 "$TMP/out")
check "slab ids are hex strings" grep -Eq '"kind":"slab","id":"0x[0-9a-f]+"' "$TMP/out"
check "sheaf ids are integers" grep -Eq '"kind":"sheaf","id":[0-9]+,' "$TMP/out"
check "places omit unset fields" grep -q '"from":{"type":"none"}' "$TMP/out"
sl run "$TMP/s.json" --events --seed 8
check "another seed gives other events" not cmp -s "$TMP/out" "$TMP/ev1"

# ---- --snapshot ----
sl run "$TMP/s.json" --snapshot
check "--snapshot parses" json_doc "$TMP/out"
keys=$(json_keys "$TMP/out")
check "--snapshot keys ($keys)" [ "$keys" = "seq,op,nr_cpus,nr_nodes,cpu_node,caches,slabs,sheaves,zones,inflight,rcu_pending,rcu_callbacks" ]

# ---- overrides ----
sl run "$TMP/s.json" --json --variant DEFERRED_FREELIST=before --seed 9
check "--variant shows in --json" grep -q '"DEFERRED_FREELIST":"before"' "$TMP/out"
check "--seed shows in --json" grep -q '"seed":9,' "$TMP/out"

# ---- failing expects: exit 1 ----
sed 's/"op": "==", "value": 70/"op": "==", "value": 71/' "$TMP/s.json" >"$TMP/f.json"
sl run "$TMP/f.json"
check "a failing expect exits 1" [ "$status" -eq 1 ]
check "the failing expect is marked" grep -q '^FAIL f69: A.cpu1.alloc_fastpath == 71 (got 70)$' "$TMP/out"
sl run "$TMP/f.json" --json
check "--json with a failing expect exits 1" [ "$status" -eq 1 ]
check "--json ok is false" grep -q '"ok":false}$' "$TMP/out"

# ---- misuse is a warning, not an abort ----
cat >"$TMP/m.json" <<'JSON'
{"format": 1, "name": "m", "caches": [{"name": "A", "object_size": 64}],
 "ops": [{"op": "alloc", "cpu": 0, "cache": "A", "name": "x"},
         {"op": "kfree", "cpu": 0, "addr": "0xffff888100000008"},
         {"op": "free", "cpu": 0, "name": "x"}]}
JSON
sl run "$TMP/m.json"
check "misuse does not stop the run" [ "$status" -eq 0 ]
check "misuse is a warning line" grep -q '^warning: ops\[1\] (kfree): misuse: ' "$TMP/out"
check "the report follows the warning" grep -qx '/sys/kernel/slab/A/' "$TMP/out"
sl run "$TMP/m.json" --json
check "misuse is in --json warnings" grep -q '"warnings":\[{"path":"ops\[1\]","op":"kfree","status":"misuse"' "$TMP/out"

# ---- --validate ----
sl run "$TMP/s.json" --validate
check "--validate passes on a sound engine" [ "$status" -eq 0 ]

# ---- compare ----
sl compare "$TMP/s.json" --variant DEFERRED_FREELIST
check "compare exits 0" [ "$status" -eq 0 ]
check "compare prints the table head" grep -Eq '^metric +baseline +patched +change$' "$TMP/out"
check "compare names both sides" grep -q '^baseline: DEFERRED_FREELIST=before$' "$TMP/out"
check "compare lists zero counters" grep -Eq '^cpu_partial_drain +0 +0 +-$' "$TMP/out"
check "compare lists engine counters" grep -Eq '^engine_freeptr_writes +[0-9]+ +[0-9]+ +[-+][0-9]+\.[0-9]%$' "$TMP/out"
check "compare lists the slab-state files" grep -Eq '^objects_partial +[0-9]+ +[0-9]+ ' "$TMP/out"
sl compare "$TMP/s.json" --variant DEFERRED_FREELIST=after,before --cache B --json
check "compare --json exits 0" [ "$status" -eq 0 ]
check "compare --json parses" json_doc "$TMP/out"
check "compare --json rows have the fixed keys" \
    grep -Eq '"rows":\[\{"metric":"alloc_fastpath","baseline":[0-9]+,"patched":[0-9]+,"change_pct":' "$TMP/out"
check "compare --json: change_pct null for a zero baseline" \
    grep -q '{"metric":"cpu_partial_drain","baseline":0,"patched":0,"change_pct":null}' "$TMP/out"
rows=$(json_len "$TMP/out" rows)
check "compare --json has a row per counter plus 5 ($rows)" [ "$rows" -ge 50 ]
sl compare "$TMP/s.json" --variant DEFERRED_FREELIST --json
cp "$TMP/out" "$TMP/c1"
sl compare "$TMP/s.json" --variant DEFERRED_FREELIST --json
check "compare is deterministic" cmp -s "$TMP/out" "$TMP/c1"

# ---- the complete example of docs/scenario-format.md runs and passes ----
doc="$(dirname "$0")/../../docs/scenario-format.md"
sed -n '/^## A complete example/,/^## /p' "$doc" | sed -n '/^```json$/,/^```$/p' | sed '1d;$d' >"$TMP/doc.json"
sl run "$TMP/doc.json" --validate
check "the documented example scenario passes its expects" [ "$status" -eq 0 ]

finish
