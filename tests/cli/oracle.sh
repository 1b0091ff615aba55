#!/usr/bin/env bash
# tests/cli/oracle.sh: `slublab oracle gen`: the same seed gives the same
# bytes, other seeds other programs; every program is a valid scenario that
# runs on its release without a warning; 7.x programs add prefilled sheaves
# and kfree_rcu (each kfree_rcu batch closed by an rcu_barrier), 6.x ones
# never; options out of range are usage errors.
. "$(dirname "$0")/lib.bash"

sl oracle gen --seed 42
check "gen exits 0" [ "$status" -eq 0 ]
cp "$TMP/out" "$TMP/a.json"
sl oracle gen --seed 42
check "same seed, same bytes" cmp -s "$TMP/out" "$TMP/a.json"
sl oracle gen --seed 43
check "another seed, another program" not cmp -s "$TMP/out" "$TMP/a.json"
check "the program is JSON" json_doc "$TMP/a.json"
check "named r42" grep -q '"name": "r42"' "$TMP/a.json"

sl oracle gen --seed 42 -o "$TMP/b.json"
check "-o writes the same bytes" cmp -s "$TMP/b.json" "$TMP/a.json"

seven=0
for kernel in 6.1 6.12 7.3; do
    for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
        "$BIN" oracle gen --seed "$seed" --kernel "$kernel" -o "$TMP/p.json"
        sl run "$TMP/p.json" --model "$kernel"
        check "$kernel seed $seed runs" [ "$status" -eq 0 ]
        check "$kernel seed $seed: no warning" not grep -q warning "$TMP/out" "$TMP/err"
        if grep -qE '"(prefill|kfree_rcu|refill_sheaf|return_sheaf|alloc_from_sheaf|rcu_barrier)"' "$TMP/p.json"; then
            check "$kernel: no 7.x operation" [ "${kernel%%.*}" = 7 ]
            seven=$((seven + 1))
        fi
        # every kfree_rcu is followed by an rcu_barrier before the next mark
        check "$kernel seed $seed: kfree_rcu settled before marks" awk '
            /"kfree_rcu"/ { open = 1 }
            /"rcu_barrier"/ { open = 0 }
            /"mark"/ && open { exit 1 }
            END { exit open }' "$TMP/p.json"
    done
done
check "7.3 programs use 7.x operations" [ "$seven" -gt 0 ]

# programs of the shape whose result depends on flush_all()'s order: a
# shrink right after a bulk free, in at least 8 of 40 seeds (1 before the
# generator weighted them)
after_bulk=0
for seed in $(seq 1 40); do
    "$BIN" oracle gen --seed "$seed" --kernel 6.12 -o "$TMP/p.json"
    grep -A1 '"free_bulk"' "$TMP/p.json" | grep -q '"shrink"' && after_bulk=$((after_bulk + 1))
done
check "shrinks after bulk frees are common ($after_bulk of 40)" [ "$after_bulk" -ge 8 ]

# --shape shrink: every bulk free and every free that ran on another CPU
# than the allocation's is followed by a shrink (so nearly every program
# has one), and the programs still run clean
shaped=0
for seed in $(seq 1 20); do
    "$BIN" oracle gen --seed "$seed" --kernel 7.3 --shape shrink -o "$TMP/p.json"
    check "--shape shrink seed $seed: each bulk free followed by a shrink" \
        [ "$(grep -c '"free_bulk"' "$TMP/p.json")" = "$(grep -A1 '"free_bulk"' "$TMP/p.json" | grep -c '"shrink"')" ]
    grep -B1 '"shrink"' "$TMP/p.json" | grep -q '"free' && shaped=$((shaped + 1))
    sl run "$TMP/p.json" --model 7.3
    check "--shape shrink seed $seed runs clean" [ "$status" -eq 0 ]
done
check "--shape shrink: a shrink right after frees in nearly every program ($shaped of 20)" [ "$shaped" -ge 18 ]
check "--shape shrink says so in the program" grep -q 'oracle gen --seed 20 --kernel 7.x --shape shrink' "$TMP/p.json"
sl oracle gen --seed 20 --kernel 7.3
check "without --shape: another program" not cmp -s "$TMP/out" "$TMP/p.json"
sl oracle gen --seed 7 --shape round
check "an unknown shape is a usage error" [ "$status" -eq 2 ]

sl oracle gen --seed 7 --cpus 1
check "--cpus 1" grep -q '"cpus": 1, "nodes": 1' "$TMP/out"
sl oracle gen --seed 7 --cpus 8 --nodes 2
check "--cpus 8 --nodes 2" grep -q '"cpu_node": \[0, 0, 0, 0, 1, 1, 1, 1\]' "$TMP/out"
sl oracle gen --seed 7 --cpus 9
check "--cpus 9 is a usage error" [ "$status" -eq 2 ]
sl oracle gen --seed 7 --kernel 5.4
check "an unknown release is a usage error" [ "$status" -eq 2 ]
sl oracle gen
check "gen needs --seed" [ "$status" -eq 2 ]
sl oracle frobnicate
check "an unknown action is a usage error" [ "$status" -eq 2 ]

# releases as models: 6.1 counts a bulk allocation from the cpu slab as no
# alloc_fastpath and a bulk free to it as one free_fastpath; 6.12 per object
cat >"$TMP/bulk.json" <<'JSON'
{"format": 1, "name": "bulk", "machine": {"cpus": 1},
 "caches": [{"name": "c", "object_size": 64}],
 "ops": [{"op": "alloc", "cpu": 0, "cache": "c", "name": "first"},
         {"op": "alloc_bulk", "cpu": 0, "cache": "c", "count": 8, "name": "b"},
         {"op": "free_bulk", "cpu": 0, "cache": "c", "name": "b"}]}
JSON
sl run "$TMP/bulk.json" --model 6.1
check "6.1 runs" [ "$status" -eq 0 ]
check "6.1 names itself" grep -q '^model 6.1, .*CPU_PARTIAL_DIRECT_LOAD=before' "$TMP/out"
check "6.1: no alloc_fastpath in the bulk allocation" not grep -q '^alloc_fastpath' "$TMP/out"
check "6.1: one free_fastpath for the bulk free" grep -qx 'free_fastpath 1 C0=1' "$TMP/out"
sl run "$TMP/bulk.json" --model 6.12
check "6.12 is legacy:ERA_DIRECT_LOAD" grep -q '^model 6.12, .*CPU_PARTIAL_DIRECT_LOAD=after' "$TMP/out"
check "6.12: alloc_fastpath per bulk object" grep -qx 'alloc_fastpath 8 C0=8' "$TMP/out"
check "6.12: free_fastpath per bulk object" grep -qx 'free_fastpath 8 C0=8' "$TMP/out"
sl run "$TMP/bulk.json" --model legacy:ERA_DIRECT_LOAD
check "the era alone counts as 6.12" grep -qx 'alloc_fastpath 8 C0=8' "$TMP/out"
sl run "$TMP/bulk.json" --model 7.3
check "7.3 is sheaves without the barn refill" grep -q '^model 7.3, .*BARN_REFILL=before' "$TMP/out"
sed 's/"machine"/"model": "6.1", "machine"/' "$TMP/bulk.json" >"$TMP/bulk61.json"
sl run "$TMP/bulk61.json"
check "a scenario's model may be a release" grep -qx 'free_fastpath 1 C0=1' "$TMP/out"
sl run "$TMP/bulk.json" --model 5.4
check "an unknown release is refused" [ "$status" -eq 2 ]

# settled divergences: a bulk refill takes as many partial slabs as it
# needs (the kernel's get_partial_node_bulk has no cap; the engine's had 64)
python3 - "$TMP/cap.json" <<'PY'
import json, sys
ops = [{"op": "alloc_bulk", "cpu": 0, "cache": "c", "count": 800, "name": "b"}]
ops += [{"op": "free", "cpu": 0, "name": "b[%d]" % (i * 8)} for i in range(100)]
ops += [{"op": "shrink", "cache": "c"}, {"op": "mark", "name": "before"},
        {"op": "alloc_bulk", "cpu": 0, "cache": "c", "count": 90, "name": "x"}]
json.dump({"format": 1, "name": "cap", "model": "7.3", "machine": {"cpus": 1},
           "caches": [{"name": "c", "object_size": 512, "order": 0}], "ops": ops,
           "expect": [{"at": "before", "metric": "c.partial", "op": "==", "value": 100},
                      {"at": "end", "metric": "c.alloc_slab", "op": "==", "value": 100},
                      {"at": "end", "metric": "c.partial", "op": "==", "value": 10}]},
          open(sys.argv[1], "w"))
PY
sl run "$TMP/cap.json" --validate
check "90 objects from 90 partial slabs, no new slab" [ "$status" -eq 0 ]
# a debug cache's oversize prefill allocates one by one with its checks: no
# false red zone report when the objects are freed
cat >"$TMP/dbg.json" <<'JSON'
{"format": 1, "name": "dbgpf", "model": "7.3", "machine": {"cpus": 2},
 "caches": [{"name": "d", "object_size": 100, "flags": ["SLAB_RED_ZONE", "SLAB_POISON", "SLAB_STORE_USER"]}],
 "ops": [{"op": "prefill", "cpu": 0, "cache": "d", "count": 12, "name": "s"},
         {"op": "alloc_from_sheaf", "cpu": 0, "sheaf": "s", "name": "a"},
         {"op": "alloc_from_sheaf", "cpu": 0, "sheaf": "s", "name": "b"},
         {"op": "free", "cpu": 0, "name": "a"}, {"op": "free", "cpu": 1, "name": "b"},
         {"op": "refill_sheaf", "cpu": 0, "sheaf": "s", "count": 12},
         {"op": "return_sheaf", "cpu": 0, "sheaf": "s"}],
 "expect": [{"at": "end", "metric": "d.alloc_slowpath", "op": "==", "value": 14},
            {"at": "end", "metric": "d.sheaf_prefill_oversize", "op": "==", "value": 1}]}
JSON
sl run "$TMP/dbg.json" --validate
check "debug prefill: one ___slab_alloc per object" [ "$status" -eq 0 ]
check "debug prefill: no warning" not grep -q warning "$TMP/out" "$TMP/err"
sl run "$TMP/dbg.json" --events
check "debug prefill: objects taken by alloc_single_from_partial" [ "$(grep -c '"fn":"alloc_single_from_partial"' "$TMP/out")" -eq 13 ]
check "debug prefill: no bulk refill" not grep -q '"fn":"__kmem_cache_alloc_bulk"' "$TMP/out"

finish
