#!/usr/bin/env bash
# slublab export: /proc/slabinfo and the /sys/kernel/slab tree hold the
# engine's numbers (computed independently from `slublab run --snapshot`,
# `--json` and `--events` by export_expect.mjs), in the kernel's formats;
# aliases are symbolic links to a unique-id directory; files are rewritten
# in place (same inode); --at N is the state after N events.
. "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
scn=$here/../data/export.json
expect() { node "$here/export_expect.mjs" "$@"; }

sl run "$scn" --snapshot && cp "$TMP/out" "$TMP/snap.json"
sl run "$scn" --json && cp "$TMP/out" "$TMP/summary.json"
sl run "$scn" --events && cp "$TMP/out" "$TMP/events.jsonl"
nr_events=$(($(wc -l <"$TMP/events.jsonl") - 1))
expect state "$TMP/snap.json" "$TMP/summary.json" "$TMP/want"
check "expected values computed" test -s "$TMP/want/slabinfo.tsv"

mkdir "$TMP/x"
sl export "$scn" --slabinfo "$TMP/x/slabinfo" --sysfs "$TMP/x/slab"
check "export: exit 0" test "$status" -eq 0
check "export: nothing on stdout" test ! -s "$TMP/out"

# /proc/slabinfo: header, then name active num objsize objperslab pagesperslab,
# tunables 0 0 0, slabdata active_slabs == num_slabs, sharedavail 0
si=$TMP/x/slabinfo
check "slabinfo: version line" test "$(sed -n 1p "$si")" = "slabinfo - version: 2.1"
check "slabinfo: column line" test "$(sed -n 2p "$si")" = "# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>"
awk 'NR > 2 { if ($7 != ":" || $8 != "tunables" || $9 + $10 + $11 != 0 || $12 != ":" ||
              $13 != "slabdata" || $14 != $15 || $16 != 0 || NF != 16) bad = 1;
              print $1, $2, $3, $4, $5, $6, $15 }
     END { exit bad }' "$si" >"$TMP/got.tsv"
check "slabinfo: tunables 0, active_slabs = num_slabs, sharedavail 0" test $? -eq 0
check "slabinfo: every live cache with the engine's numbers, newest first" \
    diff <(tac "$TMP/want/slabinfo.tsv") "$TMP/got.tsv"
check "slabinfo: the destroyed cache is not listed" not grep -q '^gone ' "$si"
check "slabinfo: kernel column widths" \
    grep -qE '^plain {13}[ 0-9]{6} [ 0-9]{6} [ 0-9]{6} [ 0-9]{4} [ 0-9]{4} : tunables    0    0    0 : slabdata [ 0-9]{6} [ 0-9]{6}      0$' "$si"

# the sysfs tree: aliases as symbolic links to the unique id (":" flags "-" size)
d=$TMP/x/slab
size() { awk -v n="$1" '$1 == n { print $4 }' "$TMP/want/slabinfo.tsv"; }
id_dentry=$(printf ':%07d' "$(size dentry_like)")
id_inode=$(printf ':a-%07d' "$(size inode_like)")
for n in dentry_like dentry_alias filp_alias; do
    check "sysfs: $n -> $id_dentry" test "$(readlink "$d/$n")" = "$id_dentry"
done
for n in inode_like inode_alias; do
    check "sysfs: $n -> $id_inode" test "$(readlink "$d/$n")" = "$id_inode"
done
check "sysfs: plain is a directory" test -d "$d/plain" -a ! -L "$d/plain"
check "sysfs: kmalloc-128 is a directory" test -d "$d/kmalloc-128" -a ! -L "$d/kmalloc-128"
check "sysfs: destroyed cache absent" test ! -e "$d/gone"
check "sysfs: aliases of dentry_like" test "$(cat "$d/dentry_like/aliases")" = 2
check "sysfs: aliases of inode_like" test "$(cat "$d/inode_like/aliases")" = 1
check "sysfs: aliases of plain" test "$(cat "$d/plain/aliases")" = 0
check "sysfs: reclaim_account of inode_like" test "$(cat "$d/inode_like/reclaim_account")" = 1
check "sysfs: reclaim_account of plain" test "$(cat "$d/plain/reclaim_account")" = 0
check "sysfs: only directories and links at the top (tools/mm/slabinfo needs it)" \
    test -z "$(find "$d" -mindepth 1 -maxdepth 1 ! -type d ! -type l)"

# every expected file, byte for byte: per-node slab state, per-CPU counters, geometry
# compare_tree WANT TREE: sets nfiles and mismatch
compare_tree() {
    mismatch=0
    nfiles=0
    for cdir in "$1"/*/; do
        c=$(basename "$cdir")
        for f in "$cdir"*; do
            nfiles=$((nfiles + 1))
            if ! cmp -s "$f" "$2/$c/$(basename "$f")"; then
                mismatch=$((mismatch + 1))
                [ "$mismatch" -le 5 ] && echo "  $c/$(basename "$f"): want '$(cat "$f")' got '$(cat "$2/$c/$(basename "$f")" 2>&1)'"
            fi
        done
    done
}
compare_tree "$TMP/want" "$d"
check "sysfs: $nfiles files hold the engine's values" test "$mismatch" -eq 0 -a "$nfiles" -gt 50
check "sysfs: two nodes shown as N0= N1=" grep -qE '^[0-9]+ N0=[0-9]+ N1=[0-9]+$' "$d/dentry_like/slabs"
check "sysfs: a zero counter is written as 0" test "$(cat "$d/plain/sheaf_prefill_oversize")" = 0
check "sysfs: engine-only counters are not written" test ! -e "$d/plain/engine_freeptr_reads"
check "sysfs: sheaves: no counter of the legacy kernels" test ! -e "$d/plain/cpu_partial_drain" -a ! -e "$d/plain/cpuslab_flush"
check "sysfs: sheaves: no cpu slabs, as in 7.x" \
    test "$(cat "$d/plain/cpu_slabs") $(cat "$d/plain/cpu_partial") $(cat "$d/plain/slabs_cpu_partial")" = "0 0 0(0)"

# a legacy machine: cpu slabs and CPU partial lists, counted as 6.2-6.17 count them
lscn=$here/../data/export-legacy.json
sl run "$lscn" --snapshot && cp "$TMP/out" "$TMP/lsnap.json"
sl run "$lscn" --json && cp "$TMP/out" "$TMP/lsummary.json"
expect state "$TMP/lsnap.json" "$TMP/lsummary.json" "$TMP/lwant"
mkdir "$TMP/l"
sl export "$lscn" --slabinfo "$TMP/l/slabinfo" --sysfs "$TMP/l/slab"
check "legacy: exit 0" test "$status" -eq 0
ld=$TMP/l/slab
compare_tree "$TMP/lwant" "$ld"
check "legacy: $nfiles files hold the engine's values" test "$mismatch" -eq 0 -a "$nfiles" -gt 20
awk 'NR > 2 { print $1, $2, $3, $4, $5, $6, $15 }' "$TMP/l/slabinfo" >"$TMP/lgot.tsv"
check "legacy slabinfo: CPU partial slabs' free objects count as active, as get_slabinfo() counts" \
    diff <(tac "$TMP/lwant/slabinfo.tsv") "$TMP/lgot.tsv"
# what the scenario builds (tests/data/export-legacy.json): cpu slabs on both nodes,
# partial lists on CPUs 1 and 3, CPU 3 without a cpu slab
check "legacy cpu_slabs: per node" grep -qE '^[1-9][0-9]* N0=[1-9][0-9]* N1=[1-9][0-9]*$' "$ld/t512/cpu_slabs"
nr_cpu_list_slabs=$(node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1]));
console.log(s.slabs.filter((x) => x.place.type === "cpu_slab" || x.place.type === "cpu_partial").length)' "$TMP/lsnap.json")
check "legacy cpu_slabs: a partial list without a cpu slab is not counted" \
    test "$(cut -d' ' -f1 "$ld/t512/cpu_slabs")" -lt "$nr_cpu_list_slabs"
check "legacy slabs_cpu_partial: CPUs 1 and 3" grep -qE '^[0-9]+\([0-9]+\) C1=[0-9]+\(1\) C3=[0-9]+\(1\)$' "$ld/t512/slabs_cpu_partial"
check "legacy cpu_partial: the cache's cpu_partial key" test "$(cat "$ld/t512/cpu_partial")" = 24
check "legacy debug cache: no cpu slab, no CPU partial list" \
    test "$(cat "$ld/dbg/cpu_slabs") $(cat "$ld/dbg/cpu_partial") $(cat "$ld/dbg/slabs_cpu_partial")" = "0 0 0(0)"
check "legacy: a zero counter of the legacy kernels is written as 0" test "$(cat "$ld/t512/cpuslab_flush")" = 0
check "legacy: no sheaf counter, no sheaf_capacity (they came with 6.18)" \
    test ! -e "$ld/t512/barn_get" -a ! -e "$ld/t512/sheaf_flush" -a ! -e "$ld/t512/sheaf_capacity"

# the same state again: nothing is rewritten
touch -d '2001-01-01' "$d/plain/alloc_fastpath"
sl export "$scn" --sysfs "$d"
check "same state: an unchanged file is not rewritten" \
    test "$(stat -c %Y "$d/plain/alloc_fastpath")" = "$(date -d 2001-01-01 +%s)"

# in place: the same inodes after a new export; content follows the new state
ino() { stat -c %i "$1"; }
i_si=$(ino "$si") i_dir=$(ino "$d") i_file=$(ino "$d/plain/alloc_fastpath")
at=$((nr_events / 2))
sl export "$scn" --at "$at" --slabinfo "$si" --sysfs "$d"
check "--at: exit 0" test "$status" -eq 0
check "in place: slabinfo keeps its inode" test "$(ino "$si")" = "$i_si"
check "in place: the tree keeps its inode" test "$(ino "$d")" = "$i_dir"
check "in place: a counter file keeps its inode" test "$(ino "$d/plain/alloc_fastpath")" = "$i_file"
plain_id=$(node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1]));
console.log(s.caches.find((c) => c.name === "plain").id)' "$TMP/snap.json")
expect stats "$TMP/events.jsonl" "$at" "$plain_id" "$TMP/want-at"
mismatch=0
for f in "$TMP/want-at"/*; do
    cmp -s "$f" "$d/plain/$(basename "$f")" || mismatch=$((mismatch + 1))
done
check "--at $at: counters are the sums of the first $at events" test "$mismatch" -eq 0
check "--at $at: counters changed" not cmp -s "$TMP/want/plain/alloc_fastpath" "$d/plain/alloc_fastpath"
check "--at $at: kmalloc caches not made yet are removed" test ! -e "$d/kmalloc-128"
check "--at $at: kmalloc caches not in slabinfo" not grep -q '^kmalloc' "$si"

sl export "$scn" --at "$nr_events"
check "--at the end: same as no --at" diff "$TMP/out" <("$BIN" export "$scn")
sl export "$scn" --at 0
check "--at 0: the header only" test "$(wc -l <"$TMP/out")" -eq 2
sl export "$scn" --at $((nr_events + 1))
check "--at beyond the end: exit 2" test "$status" -eq 2
check "--at beyond the end: says so" grep -q "beyond the end: the scenario has $nr_events events" "$TMP/err"
sl export "$scn" --at x
check "--at x: exit 2" test "$status" -eq 2

# one tree, two scenarios: a directory becomes a link and back
cat >"$TMP/one.json" <<'EOF'
{"format": 1, "name": "one", "caches": [{"name": "A", "object_size": 64}]}
EOF
cat >"$TMP/two.json" <<'EOF'
{"format": 1, "name": "two", "caches": [{"name": "B", "object_size": 64, "aliases": ["A"]}]}
EOF
sl export "$TMP/one.json" --sysfs "$TMP/sw"
check "scenario one: A is a directory" test -d "$TMP/sw/A" -a ! -L "$TMP/sw/A"
sl export "$TMP/two.json" --sysfs "$TMP/sw"
check "scenario two: exit 0" test "$status" -eq 0
check "scenario two: A is now a link to :0000064" test "$(readlink "$TMP/sw/A")" = ":0000064"
check "scenario two: B too" test "$(readlink "$TMP/sw/B")" = ":0000064"
sl export "$TMP/one.json" --sysfs "$TMP/sw"
check "scenario one again: A is a directory, the rest is gone" test -d "$TMP/sw/A" -a ! -L "$TMP/sw/A" -a "$(ls "$TMP/sw")" = A

# a directory that is not a slab tree loses nothing
mkdir "$TMP/home" && echo precious >"$TMP/home/notes.txt"
sl export "$scn" --sysfs "$TMP/home"
check "refuses a directory with other files: exit 2" test "$status" -eq 2
check "refuses: says why" grep -q 'refusing to write' "$TMP/err"
check "refuses: the file is untouched" test "$(cat "$TMP/home/notes.txt")" = precious
check "refuses: nothing written" test "$(ls "$TMP/home")" = notes.txt
echo x >"$TMP/afile"
sl export "$scn" --sysfs "$TMP/afile"
check "--sysfs on a file: exit 2" test "$status" -eq 2
sl export "$scn" --slabinfo "$TMP/nodir/slabinfo"
check "--slabinfo in a missing directory: exit 2" test "$status" -eq 2

sl export
check "no scenario: exit 2" test "$status" -eq 2
sl export "$scn" --bogus
check "unknown option: exit 2" test "$status" -eq 2
sl export --help
check "--help" grep -q 'usage: slublab export' "$TMP/out"
sl help
check "listed in help" grep -q 'export' "$TMP/out"
finish
