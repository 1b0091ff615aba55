#!/usr/bin/env bash
# The hybrid model of 6.18 and 6.19 (docs/engine.md): every shipped scenario
# runs on --model 6.18 with the validator after each operation and neither
# crashes nor breaks an invariant (tests/engine/test_hybrid.c and the
# random-ops property test validate after every event); expects written for
# another model may fail, nothing else.
# In every final state only caches created with a sheaf_capacity have
# sheaves, and every cache but a debug one has cpu slabs.  Then the export of
# hybrid-6.18-maple shows the /sys/kernel/slab files a 6.18 kernel has.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)

layers() { # FILE: the snapshot's caches have the layers of the hybrid model
    python3 - "$1" "$2" <<'EOF'
import json, sys
snap = json.load(open(sys.argv[1]))
scn = json.load(open(sys.argv[2]))
asked = {c["name"]: c.get("sheaf_capacity", 0) for c in scn.get("caches", [])}
def walk(ops):
    for op in ops:
        if op.get("op") == "create":
            asked[op["name"]] = op.get("sheaf_capacity", 0)
        walk(op.get("ops", []))
walk(scn.get("ops", []))
bad = []
for c in snap["caches"]:
    debug = any(f in c.get("flags", []) for f in
                ("SLAB_RED_ZONE", "SLAB_POISON", "SLAB_STORE_USER", "SLAB_CONSISTENCY_CHECKS",
                 "SLAB_TRACE"))
    want = 0 if debug else asked.get(c["name"], 0)
    if c["sheaf_capacity"] != want:
        bad.append("%s: sheaf_capacity %s, want %s" % (c["name"], c["sheaf_capacity"], want))
    for cpu in c["cpus"]:
        if not want and (cpu["main"] or cpu["spare"] or cpu["rcu_free"]):
            bad.append("%s cpu %d holds a sheaf" % (c["name"], cpu["cpu"]))
        if ("cpu_slab" in cpu) == debug:
            bad.append("%s cpu %d: cpu slab %s" % (c["name"], cpu["cpu"], "cpu_slab" in cpu))
        st = cpu["stats"]
        if not want and (st.get("alloc_cpu_sheaf") or st.get("free_cpu_sheaf") or st.get("free_rcu_sheaf")):
            bad.append("%s cpu %d counted the sheaf layer" % (c["name"], cpu["cpu"]))
if bad:
    print("\n".join(bad[:5]))
    sys.exit(1)
EOF
}

# 6.19's row is 6.18's (the table in docs/engine.md): the loop runs 6.18
for f in "$root"/scenarios/*.json; do
    name=$(basename "$f" .json)
    # NO_TID is not a kernel: it breaks the invariants on purpose (its own test is explore.sh)
    [[ $name == race-no-tid ]] && continue
    sl run "$f" --model 6.18 --validate --snapshot
    # a race's schedule counts its own model's steps: on another, refused naming the token
    if [ "$status" -gt 1 ] && [[ $name == race-* ]] && grep -qE 'schedule token|has sheaves over' "$TMP/err"; then
        continue
    fi
    if [ "$status" -gt 1 ]; then
        bad "$name on 6.18: exited $status"
        continue
    fi
    check "$name on 6.18: no invariant broken" not grep -q "violation" "$TMP/err"
    check "$name on 6.18: one JSON document" json_doc "$TMP/out"
    check "$name on 6.18: sheaves only where asked, cpu slabs everywhere" layers "$TMP/out" "$f"
done
sl run "$root/scenarios/prefill-oversize.json" --model 6.19 --validate --json
check "6.19 runs" test "$status" -le 1
check "6.19 names its release" grep -q '"model":"6.19"' "$TMP/out"

# the scenario written for the hybrid model passes on its own release
sl run "$root/scenarios/hybrid-6.18-maple.json" --validate
check "hybrid-6.18-maple passes its expects" test "$status" -eq 0
check "hybrid-6.18-maple names 6.18" grep -q "^model 6.18," "$TMP/out"
# ... and its expects fail on 7.3, which counts the sheaf layer as the fast path
sl run "$root/scenarios/hybrid-6.18-maple.json" --model 7.3
check "hybrid-6.18-maple fails on 7.3" test "$status" -eq 1
check "7.3 has no alloc_cpu_sheaf" grep -q "FAIL allocated: maple_node.alloc_cpu_sheaf == 8 (got 0)" "$TMP/out"

# the sysfs files of a 6.18 kernel: sheaf_capacity on every cache, cpu_partial,
# both layers' counters
sl export "$root/scenarios/hybrid-6.18-maple.json" --sysfs "$TMP/slab"
check "export --sysfs" test "$status" -eq 0
s=$TMP/slab
check "maple_node sheaf_capacity 32" test "$(cat "$s/maple_node/sheaf_capacity")" = 32
check "kmalloc-64 sheaf_capacity 0" test "$(cat "$s/kmalloc-64/sheaf_capacity")" = 0
check "maple_node cpu_partial 52" test "$(cat "$s/maple_node/cpu_partial")" = 52
check "kmalloc-64 cpu_partial 120" test "$(cat "$s/kmalloc-64/cpu_partial")" = 120
check "maple_node alloc_cpu_sheaf" grep -q '^10 C0=9 C1=1$' "$s/maple_node/alloc_cpu_sheaf"
check "maple_node free_cpu_sheaf" grep -q '^8 C0=8$' "$s/maple_node/free_cpu_sheaf"
check "kmalloc-64 alloc_cpu_sheaf 0" grep -qx '0' "$s/kmalloc-64/alloc_cpu_sheaf"
check "kmalloc-64 free_frozen" grep -q '^8 C1=8$' "$s/kmalloc-64/free_frozen"
check "legacy counters too" test -f "$s/maple_node/cpu_partial_drain"
check "cpu_slabs" grep -q '^[1-9]' "$s/maple_node/cpu_slabs"
# a trace of a 6.18 machine replayed on 6.18 with its /sys/kernel/slab: only
# the caches with a sheaf_capacity there (maple_node, vm_area_struct) get sheaves
sl replay "$root/tests/data/kmem-trace-slice.txt.gz" --model 6.18 --sysfs "$root/tests/data/sys-kernel-slab.tar.gz" \
    -o "$TMP/replayed.json"
check "replay --model 6.18 --sysfs" test "$status" -eq 0
# a trace whose "# kernel:" line says 6.18 is replayed on the hybrid, which
# the report says with the caches that had sheaves
{ echo "# kernel: 6.18.44-amd64"; gzip -dc "$root/tests/data/kmem-trace-slice.txt.gz"; } >"$TMP/k618.txt"
sl replay "$TMP/k618.txt" --sysfs "$root/tests/data/sys-kernel-slab.tar.gz"
check "replay of a 6.18 trace: the release from its kernel line" grep -q '^kernel 6.18: the trace' "$TMP/out"
check "replay of a 6.18 trace: the hybrid and its sheaf caches" \
    grep -q '^hybrid: per-CPU slabs on every cache, sheaves on 2 of [0-9]* caches (maple_node 32, vm_area_struct 32)$' "$TMP/out"
sl run "$TMP/replayed.json" --validate --snapshot
check "the replayed trace runs on 6.18" test "$status" -eq 0
check "replayed: sheaves only where the machine had them" layers "$TMP/out" "$TMP/replayed.json"
check "replayed: maple_node and vm_area_struct on sheaves" test "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted(c["name"] for c in d["caches"] if c["sheaf_capacity"])))' "$TMP/out")" = \
    "maple_node vm_area_struct"
# on 6.12 there is no sheaf_capacity file and no sheaf counter
sl export "$root/scenarios/hybrid-6.18-maple.json" --model 6.12 --sysfs "$TMP/slab612"
check "6.12: no sheaf_capacity" not test -e "$TMP/slab612/maple_node/sheaf_capacity"
check "6.12: no alloc_cpu_sheaf" not test -e "$TMP/slab612/maple_node/alloc_cpu_sheaf"
finish
