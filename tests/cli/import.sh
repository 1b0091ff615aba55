#!/usr/bin/env bash
# slublab import: a real kernel's caches as a scenario, from the captured
# /sys/kernel/slab tree and /proc/slabinfo in tests/data, from a small tree
# with object counts (--populate), and from the live kernel when it is
# readable (else skipped).  Every scenario written must run.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
archive=$root/tests/data/sys-kernel-slab.tar.gz
# the tree unpacked, for the test's own look at its files; slublab reads the archive
tar -xzf "$archive" -C "$TMP"
tree=$TMP/sys-kernel-slab
slabinfo=$root/tests/data/proc-slabinfo.txt
js() { node -e "const s = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')); $1" "$2"; }

sl import --sysfs "$archive" -o "$TMP/sysfs.json"
check "sysfs: exit 0" test "$status" -eq 0
check "sysfs: valid JSON" json_doc "$TMP/sysfs.json"
# every name of the tree is a cache, an alias or one of the 13 kmalloc classes
names=$(find "$tree" -mindepth 1 -maxdepth 1 \( -type l -o -type d \) ! -name ':*' ! -name '.*' | wc -l)
written=$(js 'let n = 0; for (const c of s.caches) n += 1 + (c.aliases || []).length; console.log(n)' "$TMP/sysfs.json")
check "sysfs: every name kept ($names)" test "$written" -eq "$((names - 13))"
check "sysfs: no kmalloc class written" \
    test "$(js 'console.log(s.caches.filter(c => /^kmalloc-[0-9]+k?$/.test(c.name)).length)' "$TMP/sysfs.json")" = 0
# a merged cache: the unique-id directory :0000064 is named by its first alias
check "sysfs: merged cache named and aliased" \
    test "$(js 'const c = s.caches.find(c => c.name === "dmaengine-unmap-2"); console.log(c.object_size, c.aliases.includes("jbd2_inode"), c.aliases.includes("dmaengine-unmap-2"))' "$TMP/sysfs.json")" = "64 true false"
# flags as the flag files say, for every cache directory
flags_ok=0 flags_bad=0
while read -r name flags; do
    d=$tree/$name
    want=
    [ "$(cat "$d/hwcache_align")" = 1 ] && want="$want,SLAB_HWCACHE_ALIGN"
    [ "$(cat "$d/cache_dma")" = 1 ] && want="$want,SLAB_CACHE_DMA"
    [ "$(cat "$d/reclaim_account")" = 1 ] && want="$want,SLAB_RECLAIM_ACCOUNT"
    [ "$(cat "$d/destroy_by_rcu")" = 1 ] && want="$want,SLAB_TYPESAFE_BY_RCU"
    got=$(echo ",$flags" | tr ',' '\n' | grep -v -e '^$' -e SLAB_KMALLOC | paste -sd, -)
    if [ "$got" = "${want#,}" ]; then flags_ok=$((flags_ok + 1)); else flags_bad=$((flags_bad + 1)); echo "flags of $name: $got, want ${want#,}"; fi
done < <(js 'for (const c of s.caches) console.log(c.name, (c.flags || []).join(","))' "$TMP/sysfs.json")
check "sysfs: flags as the flag files say" test "$flags_bad" -eq 0 -a "$flags_ok" -gt 200
check "sysfs: a merged cache with two flags" \
    test "$(js 'console.log(s.caches.find(c => c.name === "jbd2_transaction_s").flags.join(","))' "$TMP/sysfs.json")" = \
    "SLAB_HWCACHE_ALIGN,SLAB_RECLAIM_ACCOUNT"
check "sysfs: names the kernel" grep -q 'Linux 6.18.44-fc-v782' "$TMP/sysfs.json"
sl run "$TMP/sysfs.json"
check "sysfs: the scenario runs" test "$status" -eq 0
check "sysfs: dentry as the kernel sized it" \
    grep -A5 '^/sys/kernel/slab/dentry/$' "$TMP/out" | grep -q "objs_per_slab $(cat "$tree/dentry/objs_per_slab")"

sl import --sysfs "$archive" --populate
check "populate without counts: exit 2" test "$status" -eq 2
check "populate without counts: says so" grep -q 'no object counts' "$TMP/err"

# a small tree with counts, as the live one has them
mkdir -p "$TMP/tree"
cp -r "$tree/dentry" "$tree/kmalloc-64" "$tree/.nproc" "$TMP/tree/"
echo "1000 N0=1000" >"$TMP/tree/dentry/objects"
echo "1050 N0=1050" >"$TMP/tree/dentry/total_objects"
echo "50 N0=50" >"$TMP/tree/dentry/slabs"
echo "300 N0=300" >"$TMP/tree/kmalloc-64/objects"
echo "320 N0=320" >"$TMP/tree/kmalloc-64/total_objects"
echo "5 N0=5" >"$TMP/tree/kmalloc-64/slabs"
ln -s dentry "$TMP/tree/dentry_alias"
sl import --sysfs "$TMP/tree" --populate -o "$TMP/pop.json"
check "populate: exit 0" test "$status" -eq 0
check "populate: alias of a plain cache" \
    test "$(js 'console.log(s.caches[0].name, s.caches[0].aliases.join())' "$TMP/pop.json")" = "dentry dentry_alias"
sl run "$TMP/pop.json"
check "populate: runs" test "$status" -eq 0
objs() { awk -v c="/sys/kernel/slab/$1/" '$0 == c { f = 1 } f && $1 == "objects" { print $2; exit }' "$TMP/out"; }
# objects counts what left the slabs: the allocations plus what sheaves hold
check "populate: dentry holds its 1000 objects" test "$(objs dentry)" -ge 1000
check "populate: kmalloc-64 holds its 300 objects" test "$(objs kmalloc-64)" -ge 300
check "populate: not far more" test "$(objs kmalloc-64)" -lt 400

# a busy machine: more objects in one cache than a repeat may run, and more
# in all than a scenario may; the scenario still runs, with each cache's share
total_of() { js 'let n = 0; const w = (ops, k) => { for (const o of ops) if (o.op === "repeat") w(o.ops, k * o.times); else n += k; }; w(s.ops, 1); console.log(n)' "$1"; }
echo "1200000 N0=1200000" >"$TMP/tree/dentry/objects"
echo "1200000 N0=1200000" >"$TMP/tree/dentry/total_objects"
echo "57143 N0=57143" >"$TMP/tree/dentry/slabs"
sl import --sysfs "$TMP/tree" --populate -o "$TMP/busy.json"
check "busy: exit 0" test "$status" -eq 0
check "busy: 1,200,000 dentries and 300 kmalloc-64" test "$(total_of "$TMP/busy.json")" -eq 1200300
sl run "$TMP/busy.json"
check "busy: runs" test "$status" -eq 0
check "busy: dentry holds them" test "$(objs dentry)" -ge 1200000
echo "8000000 N0=8000000" >"$TMP/tree/dentry/objects"
echo "8000000 N0=8000000" >"$TMP/tree/dentry/total_objects"
echo "4000000 N0=4000000" >"$TMP/tree/kmalloc-64/objects"
echo "4000000 N0=4000000" >"$TMP/tree/kmalloc-64/total_objects"
sl import --sysfs "$TMP/tree" --populate -o "$TMP/busier.json"
check "busier: exit 0" test "$status" -eq 0
check "busier: says the objects were scaled" grep -q 'more than a scenario' "$TMP/err"
check "busier: within the scenario's operations" test "$(total_of "$TMP/busier.json")" -le 10000000
check "busier: near them" test "$(total_of "$TMP/busier.json")" -ge 9999998

sl import --slabinfo "$slabinfo" --populate -o "$TMP/slabinfo.json"
check "slabinfo: exit 0" test "$status" -eq 0
check "slabinfo: says what it lacks" grep -q 'lacks the alignment' "$TMP/err"
check "slabinfo: the description too" grep -q 'does not show the alignment' "$TMP/slabinfo.json"
check "slabinfo: every line a cache or a kmalloc class" \
    test "$(js 'console.log(s.caches.length + 13)' "$TMP/slabinfo.json")" = "$(tail -n +3 "$slabinfo" | wc -l)"
sl run "$TMP/slabinfo.json"
check "slabinfo: runs" test "$status" -eq 0
# the inferred alignment gives the kernel's objects per slab
want=$(awk '$1 == "dentry" { print $5 }' "$slabinfo")
check "slabinfo: dentry objs_per_slab $want" \
    grep -A5 '^/sys/kernel/slab/dentry/$' "$TMP/out" | grep -q "objs_per_slab $want"
check "slabinfo: dentry populated" test "$(objs dentry)" -ge "$(awk '$1 == "dentry" { print $2 }' "$slabinfo")"

printf 'not slabinfo\n' >"$TMP/bad.txt"
sl import --slabinfo "$TMP/bad.txt"
check "bad slabinfo: exit 2" test "$status" -eq 2
printf 'slabinfo - version: 2.1\nx 1 2\n' >"$TMP/bad.txt"
sl import --slabinfo "$TMP/bad.txt"
check "truncated slabinfo line: exit 2" test "$status" -eq 2
check "truncated slabinfo line: names it" grep -q 'line 2' "$TMP/err"
sl import
check "no source: exit 2" test "$status" -eq 2
sl import --sysfs "$archive" --slabinfo "$slabinfo"
check "two sources: exit 2" test "$status" -eq 2
sl import --help
check "--help" grep -q 'usage: slublab import' "$TMP/out"

if [ -r /sys/kernel/slab/kmalloc-64/objects ]; then
    sl import --sysfs /sys/kernel/slab --populate -o "$TMP/live.json"
    check "live: exit 0" test "$status" -eq 0
    sl run "$TMP/live.json"
    check "live: runs" test "$status" -eq 0
else
    skip "live /sys/kernel/slab is not readable here"
fi
finish
