#!/usr/bin/env bash
# slublab geometry: the engine's sizing against this machine's kernel, on
# the captured tree in tests/data (an archive, read as it is and unpacked)
# and on the live /sys/kernel/slab when it is readable (as root).  A run
# that cannot happen is reported as skipped, never counted as passed.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
tree=$root/tests/data/sys-kernel-slab.tar.gz

sl geometry --sysfs "$tree"
check "captured tree: exit 0" test "$status" -eq 0
check "captured tree: no mismatch" grep -q ' 0 mismatched' "$TMP/out"
check "captured tree: kmalloc-8k matches" grep -qE '^kmalloc-8k +ok +8192/8192 8192/8192 4/4 3/3 6/6' "$TMP/out"
check "captured tree: every cache judged" grep -qE '^2[0-9]{2} matched' "$TMP/out"
# 6.18's vm_area_struct keeps its free pointer inside the object
# (freeptr_offset, which sysfs does not show): the release defaults of the
# tree's .kernel give it (kcache_defaults.c)
check "captured tree: vm_area_struct 192 B, 21 per slab" \
    grep -qE '^vm_area_struct +ok +192/192 64/64 21/21 0/0 5/5' "$TMP/out"
check "captured tree: nothing undetermined" grep -q ' 0 undetermined' "$TMP/out"

# the check can fail: 64 CPUs change min_objects and so many orders
sl geometry --sysfs "$tree" --cpus 64
check "64 cpus: exit 1" test "$status" -eq 1
check "64 cpus: mismatches counted" grep -qE ' [1-9][0-9]* mismatched' "$TMP/out"

# the same tree unpacked: the same report
tar -xzf "$tree" -C "$TMP"
sed 1d "$TMP/out" >"$TMP/archive.txt"
sl geometry --sysfs "$TMP/sys-kernel-slab" --cpus 64
check "unpacked tree: the archive's report" cmp -s <(sed 1d "$TMP/out") "$TMP/archive.txt"

# without .kernel the release is unknown: the offset cannot be had
cp -r "$TMP/sys-kernel-slab" "$TMP/nokernel"
rm -f "$TMP/nokernel/.kernel"
sl geometry --sysfs "$TMP/nokernel"
check "no .kernel: vm_area_struct undetermined" grep -qE '^vm_area_struct +- +undetermined' "$TMP/out"

# a damaged archive is refused with the reason
head -c 20000 "$tree" >"$TMP/cut.tar.gz"
sl geometry --sysfs "$TMP/cut.tar.gz"
check "cut archive: usage error" test "$status" -eq 2
check "cut archive: says where" grep -q 'cut.tar.gz: .*(at byte [0-9]*)' "$TMP/err"
printf 'not an archive\n' >"$TMP/text.tar"
sl geometry --sysfs "$TMP/text.tar"
check "not an archive: usage error" test "$status" -eq 2
check "not an archive: says so" grep -q 'text.tar: truncated' "$TMP/err"
tar -czf "$TMP/empty.tar.gz" -T /dev/null
sl geometry --sysfs "$TMP/empty.tar.gz"
check "an archive without caches: usage error" test "$status" -eq 2
check "an archive without caches: says so" grep -q 'holds no cache directories' "$TMP/err"

mkdir -p "$TMP/nonproc/a"
for f in object_size slab_size align objs_per_slab order min_partial; do
    cp "$TMP/sys-kernel-slab/kmalloc-64/$f" "$TMP/nonproc/a/$f"
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
