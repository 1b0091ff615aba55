#!/usr/bin/env bash
# slublab geometry: the engine's sizing against this machine's kernel, on
# the captured tree in tests/data and on the live /sys/kernel/slab when it
# is readable (as root).  A run that cannot happen is reported as skipped,
# never counted as passed.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
tree=$root/tests/data/sys-kernel-slab

sl geometry --sysfs "$tree"
check "captured tree: exit 0" test "$status" -eq 0
check "captured tree: no mismatch" grep -q ' 0 mismatched' "$TMP/out"
check "captured tree: kmalloc-8k matches" grep -qE '^kmalloc-8k +ok +8192/8192 8192/8192 4/4 3/3 6/6' "$TMP/out"
check "captured tree: every cache judged" grep -qE '^2[0-9]{2} matched' "$TMP/out"
check "captured tree: vm_area_struct undetermined" grep -qE '^vm_area_struct +- +undetermined' "$TMP/out"

# the check can fail: 64 CPUs change min_objects and so many orders
sl geometry --sysfs "$tree" --cpus 64
check "64 cpus: exit 1" test "$status" -eq 1
check "64 cpus: mismatches counted" grep -qE ' [1-9][0-9]* mismatched' "$TMP/out"

mkdir -p "$TMP/nonproc/a"
for f in object_size slab_size align objs_per_slab order min_partial; do
    cp "$tree/kmalloc-64/$f" "$TMP/nonproc/a/$f"
done
sl geometry --sysfs "$TMP/nonproc"
check "no .nproc: usage error" test "$status" -eq 2
check "no .nproc: says so" grep -q '.nproc' "$TMP/err"
sl geometry --sysfs "$TMP/nonproc" --cpus 2
check "no .nproc with --cpus: exit 0" test "$status" -eq 0
sl geometry
check "no --sysfs: usage error" test "$status" -eq 2
sl geometry --help
check "--help" grep -q 'usage: slublab geometry' "$TMP/out"

if [ -r /sys/kernel/slab/kmalloc-64/object_size ]; then
    sl geometry --sysfs /sys/kernel/slab
    check "live kernel: exit 0" test "$status" -eq 0
    check "live kernel: no mismatch" grep -q ' 0 mismatched' "$TMP/out"
else
    skip "live /sys/kernel/slab is not readable here"
fi
finish
