#!/usr/bin/env bash
# Release defaults for known kernel caches (server/kfiles/kcache_defaults.c):
# a 6.18 trace replayed without --sysfs puts maple_node and vm_area_struct
# on sheaves (each asks for 32 in 6.18) and lays vm_area_struct out as the
# kernel does, 192 B with its free pointer inside (freeptr_offset,
# SLAB_TYPESAFE_BY_RCU): 21 per slab, with or without --sysfs.  The captured
# tree of tests/data is the kernel's (6.18) view.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
trace=$root/tests/data/kmem-trace-sample.txt.gz
tree=$root/tests/data/sys-kernel-slab.tar.gz

# the caches table (the first vm_area_struct row; the ranking after it has other columns)
vma() { grep -m1 -E '^vm_area_struct ' "$TMP/out" | awk '{print $6 "/" $7}'; }

sl replay "$trace" --kernel 6.18
check "6.18 without --sysfs: exit 0" test "$status" -eq 0
check "6.18 without --sysfs: maple_node and vm_area_struct on sheaves" \
    grep -q 'sheaves on 2 of [0-9]* caches (maple_node 32, vm_area_struct 32)' "$TMP/out"
check "6.18 without --sysfs: vm_area_struct 192 B ($(vma))" test "$(vma)" = "192/192"
sl replay "$trace" --kernel 6.18 -o "$TMP/r.json"
check "the scenario creates vm_area_struct as 6.18 does" python3 - "$TMP/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def creates(ops):
    for o in ops:
        if o.get("op") == "create":
            yield o
        yield from creates(o.get("ops", []))
c = {o["name"]: o for o in list(d.get("caches", [])) + list(creates(d.get("ops", [])))}
v, m = c["vm_area_struct"], c["maple_node"]
assert v.get("freeptr_offset") == 0 and v.get("sheaf_capacity") == 32, v
assert "SLAB_TYPESAFE_BY_RCU" in v.get("flags", []) and "SLAB_HWCACHE_ALIGN" in v.get("flags", []), v
assert m.get("sheaf_capacity") == 32 and m.get("align") == 256, m
PY
sl replay "$trace" --kernel 6.18 --sysfs "$tree"
check "6.18 with --sysfs: the same sheaves" \
    grep -q 'sheaves on 2 of [0-9]* caches (maple_node 32, vm_area_struct 32)' "$TMP/out"
check "6.18 with --sysfs: vm_area_struct 192 B ($(vma))" test "$(vma)" = "192/192"

# 6.12 has neither: no sheaves (legacy model), vm_area_struct a plain cache
sl replay "$trace" --kernel 6.12
check "6.12: no sheaves" not grep -q 'sheaves on' "$TMP/out"

# import from the captured tree: the offset sysfs hides comes from 6.18's table
sl import --sysfs "$tree" -o "$TMP/imp.json"
check "import: exit 0" test "$status" -eq 0
sl run "$TMP/imp.json"
vma_files() { grep -A4 -E '^/sys/kernel/slab/vm_area_struct/$' "$TMP/out" | tr '\n' ' '; }
check "import: vm_area_struct 192 B, 21 per slab ($(vma_files))" \
    test "$(vma_files)" = "/sys/kernel/slab/vm_area_struct/ object_size 192 slab_size 192 align 64 objs_per_slab 21 "
finish
