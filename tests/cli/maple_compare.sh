#!/usr/bin/env bash
# The maple-like workload with BARN_REFILL before and after must show the
# directions the kernel change reported (BARN_REFILL, docs/engine.md): barn_get and barn_put
# rise from almost nothing; barn_put_fail, sheaf_flush, sheaf_refill and
# free_add_partial fall; alloc_slab and free_slab fall sharply; free_slowpath
# falls and, on two nodes, is not zero before.  Slab counts are noisy in
# this workload, so no end-of-run slab count is asserted.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)

sl compare "$root/scenarios/maple-prefill-kfree-rcu.json" --variant BARN_REFILL --json
check "compare exits 0" test "$status" -eq 0
row() { # row METRIC FIELD
    node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1]));
             const r=d.rows.find(x=>x.metric===process.argv[2]); console.log(r[process.argv[3]]);' \
        "$TMP/out" "$1" "$2"
}
b() { row "$1" baseline; }
p() { row "$1" patched; }
check "barn_get rises from almost nothing" test "$(b barn_get)" -le 10 -a "$(p barn_get)" -gt 100
check "barn_put rises" test "$(p barn_put)" -gt $((10 * $(b barn_put)))
for m in barn_put_fail sheaf_flush sheaf_refill free_add_partial free_slowpath; do
    check "$m falls ($(b $m) -> $(p $m))" test "$(p $m)" -lt "$(b $m)"
done
check "free_slowpath is not zero before, on two nodes" test "$(b free_slowpath)" -gt 0
check "alloc_slab falls sharply ($(b alloc_slab) -> $(p alloc_slab))" \
    test $((4 * $(p alloc_slab))) -le "$(b alloc_slab)"
check "free_slab falls sharply ($(b free_slab) -> $(p free_slab))" \
    test $((4 * $(p free_slab))) -le "$(b free_slab)"
finish
