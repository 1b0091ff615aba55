#!/usr/bin/env bash
# tests/cli/import_era.sh: `slublab import --sysfs` tells the era from the
# files (sheaf_capacity, cpu_partial), says which it found, picks the model
# (the .kernel release when it belongs to that era) and gives each cache the
# kernel's sheaf capacity.  Trees: tests/data/sysfs-era/*.tar.gz (README there).
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
eras=$root/tests/data/sysfs-era
js() { node -e "const s = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')); $1" "$2"; }

# import TREE: the scenario in $TMP/out.json, stderr in $TMP/err
import() {
    sl import --sysfs "$1" -o "$TMP/out.json"
}
# the release (a "kernel" key) or, for an era with no release of its own, the model
model() { js 'console.log(s.kernel ?? s.model)' "$TMP/out.json"; }
capacity() { js "const c = s.caches.find(c => c.name === '$1'); console.log(c ? (c.sheaf_capacity || 0) : 'none')" "$TMP/out.json"; }

import "$eras/hybrid.tar.gz"
check "hybrid: exit 0" test "$status" -eq 0
check "hybrid: says the era" grep -q 'the hybrid era of 6.18 and 6.19' "$TMP/err"
check "hybrid: with the counts" grep -q 'sheaf_capacity on 4 of 4 caches, non-zero on 2, cpu_partial on 4' "$TMP/err"
check "hybrid: names the caches on sheaves" grep -qx 'slublab import: sheaves on maple_node 32, vm_area_struct 32' "$TMP/err"
check "hybrid: model 6.18 (its .kernel)" test "$(model)" = 6.18
check "hybrid: maple_node 32" test "$(capacity maple_node)" = 32
check "hybrid: vm_area_struct 32" test "$(capacity vm_area_struct)" = 32
check "hybrid: dentry none" test "$(capacity dentry)" = 0
check "hybrid: the description says it" \
    test "$(js 'console.log(/tell the hybrid era/.test(s.description))' "$TMP/out.json")" = true

import "$eras/legacy.tar.gz"
check "legacy: exit 0" test "$status" -eq 0
check "legacy: says the era" grep -q 'the legacy era (per-CPU slabs, before 6.18)' "$TMP/err"
check "legacy: model 6.12 (its .kernel)" test "$(model)" = 6.12
check "legacy: no sheaf capacity" test "$(capacity maple_node)" = 0
check "legacy: no sheaves line" not grep -q 'sheaves on' "$TMP/err"

import "$eras/sheaves.tar.gz"
check "sheaves: exit 0" test "$status" -eq 0
check "sheaves: says the era" grep -q 'the sheaves era (7.0 on' "$TMP/err"
check "sheaves: model 7.3 (its .kernel)" test "$(model)" = 7.3
check "sheaves: dentry 28" test "$(capacity dentry)" = 28
check "sheaves: maple_node 32" test "$(capacity maple_node)" = 32

import "$eras/mixed.tar.gz"
check "mixed: exit 0" test "$status" -eq 0
check "mixed: says the files disagree" grep -q 'no era: the files disagree' "$TMP/err"
check "mixed: the default model, .kernel named" grep -q 'model sheaves (.kernel: 6.18' "$TMP/err"

# a .kernel of another era than the files: the files win, the era's model
tar -xzf "$eras/legacy.tar.gz" -C "$TMP" && mv "$TMP/legacy" "$TMP/legacy73"
echo 7.3.0 >"$TMP/legacy73/.kernel"
import "$TMP/legacy73"
check "legacy files, 7.3 .kernel: model legacy" test "$(model)" = legacy
check "legacy files, 7.3 .kernel: says so" grep -q 'model legacy (.kernel: 7.3.0)' "$TMP/err"

# a hybrid tree copied without cpu_partial: capacity 0 on most caches
import "$root/tests/data/sys-kernel-slab.tar.gz"
check "capture without cpu_partial: hybrid" grep -q 'the hybrid era of 6.18 and 6.19' "$TMP/err"
check "capture without cpu_partial: model 6.18" test "$(model)" = 6.18
check "capture: only maple_node and vm_area_struct have a capacity" \
    test "$(js 'console.log(s.caches.filter(c => c.sheaf_capacity).map(c => c.name).join(","))' "$TMP/out.json")" = \
    "maple_node,vm_area_struct"

# this machine's tree, when it is one of these eras
if [ -r /sys/kernel/slab/maple_node/sheaf_capacity ] && [ -r /sys/kernel/slab/dentry/cpu_partial ]; then
    import /sys/kernel/slab
    check "live: an era found" grep -qE 'the (hybrid|sheaves) era' "$TMP/err"
else
    skip "live: /sys/kernel/slab has no sheaf_capacity and cpu_partial"
fi
finish
