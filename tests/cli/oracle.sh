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

finish
