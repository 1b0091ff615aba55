#!/usr/bin/env bash
# The real tools read an export: procps `slabtop -o` and the kernel's own
# tools/mm/slabinfo (tools/vm/ before 6.3), built here from Debian's
# linux-source package and never committed, run in a private mount
# namespace with the exported files bind-mounted over /proc/slabinfo and
# /sys/kernel/slab.  What they print must be the engine's numbers, computed
# independently from `slublab run --snapshot` and `--json`.  Where the tools,
# the kernel source or a mount namespace are not available, the checks are
# reported as skipped, never as passed.
. "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
scn=$here/../data/export.json
build=${SLUBLAB_BUILD_DIR:-$TMP}

# ---- the kernel's slabinfo tool, from /usr/src/linux-source-*.tar.xz ----
# build_slabinfo OUT: extract only slabinfo.c and compile it; 0 or 1.
build_slabinfo() {
    local out=$1 tarball src
    tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1)
    [ -n "$tarball" ] || return 1
    if [ -x "$out" ] && [ "$out" -nt "$tarball" ]; then return 0; fi
    mkdir -p "$TMP/ksrc" "$(dirname "$out")"
    tar -xJf "$tarball" -C "$TMP/ksrc" --wildcards '*/tools/mm/slabinfo.c' '*/tools/vm/slabinfo.c' \
        2>/dev/null
    src=$(find "$TMP/ksrc" -name slabinfo.c | head -1)
    [ -n "$src" ] && gcc -O2 -w -o "$out" "$src"
}
slabinfo_bin=$build/kernel-tools/slabinfo
have_tools=1
if ! build_slabinfo "$slabinfo_bin"; then
    skip "no /usr/src/linux-source-*.tar.xz (scripts/setup --test installs linux-source): no kernel slabinfo tool"
    have_tools=0
fi
if ! command -v slabtop >/dev/null; then
    skip "no slabtop (procps)"
    have_tools=0
fi
ns=()
if unshare -m true 2>/dev/null; then
    ns=(unshare -m)
elif unshare -Urm true 2>/dev/null; then
    ns=(unshare -Urm)
else
    skip "no private mount namespace here (unshare -m needs root, unshare -Urm user namespaces)"
    have_tools=0
fi
[ "$have_tools" = 1 ] || finish

# ---- the exports and the values they must show ----
# export_state SCENARIO DIR: the expected values in DIR/want, the export in DIR/x
export_state() {
    mkdir -p "$2/x"
    sl run "$1" --snapshot && cp "$TMP/out" "$2/snap.json"
    sl run "$1" --json && cp "$TMP/out" "$2/summary.json"
    node "$here/export_expect.mjs" state "$2/snap.json" "$2/summary.json" "$2/want"
    sl export "$1" --slabinfo "$2/x/slabinfo" --sysfs "$2/x/slab"
    check "export of $(basename "$1"): exit 0" test "$status" -eq 0
}
export_state "$scn" "$TMP"
# a legacy machine: cpu slabs and CPU partial lists (tests/data/export-legacy.json)
export_state "$here/../data/export-legacy.json" "$TMP/legacy"
want=$TMP/want
tree=$TMP/x/slab
val() { if [ -f "$want/$1/$2" ]; then awk '{ print $1 }' "$want/$1/$2"; else echo 0; fi; } # total of an expected file (0: a zero counter)
dirname_of() {                               # the tree's directory for cache $1
    local l
    l=$(readlink "$tree/$1") && echo "$l" || echo "$1"
}

# ---- run every tool once, inside the namespace ----
cat >"$TMP/inside.sh" <<EOF
set -e
mount --bind "$TMP/x/slabinfo" /proc/slabinfo
mount --bind "$TMP/x/slab" /sys/kernel/slab
slabtop -o >"$TMP/slabtop.txt"
"$slabinfo_bin" -B >"$TMP/si-list.txt"
"$slabinfo_bin" -a >"$TMP/si-aliases.txt"
"$slabinfo_bin" -r plain >"$TMP/si-report.txt"
"$slabinfo_bin" -B -S >"$TMP/si-size.txt"
"$slabinfo_bin" -D >"$TMP/si-activity.txt"
"$slabinfo_bin" -n >"$TMP/si-numa.txt"
"$slabinfo_bin" -T >"$TMP/si-totals.txt"
mount --bind "$TMP/legacy/x/slabinfo" /proc/slabinfo
mount --bind "$TMP/legacy/x/slab" /sys/kernel/slab
"$slabinfo_bin" -B >"$TMP/li-list.txt"
"$slabinfo_bin" -r t512 >"$TMP/li-report.txt"
EOF
if ! "${ns[@]}" bash "$TMP/inside.sh" 2>"$TMP/ns.err"; then
    if grep -qiE 'permission denied|operation not permitted' "$TMP/ns.err"; then
        skip "bind mounts refused here: $(head -1 "$TMP/ns.err")"
        finish
    fi
    bad "the tools ran in the namespace: $(head -3 "$TMP/ns.err")"
fi
check "the namespace did not leak: live /proc/slabinfo untouched" \
    not grep -q '^dentry_like ' /proc/slabinfo

# ---- slabtop -o ----
st=$TMP/slabtop.txt
sum() { awk -v c="$1" '{ s += $c } END { print s }' "$want/slabinfo.tsv"; }
check "slabtop: total objects" grep -qE "^ Active / Total Objects \\(% used\\) +: $(sum 2) / $(sum 3) " "$st"
check "slabtop: total slabs" grep -qE "^ Active / Total Slabs \\(% used\\) +: $(sum 7) / $(sum 7) " "$st"
check "slabtop: caches" grep -qE "^ Active / Total Caches \\(% used\\) +: $(wc -l <"$want/slabinfo.tsv") / " "$st"
# OBJS ACTIVE USE OBJSIZE SLABS OBJ/SLAB CACHESIZE NAME
awk '/^ +[0-9]/ { print $8, $2, $1, $5, $6 }' "$st" | sort >"$TMP/st-got"
awk '{ print $1, $2, $3, $7, $5 }' "$want/slabinfo.tsv" | sort >"$TMP/st-want"
check "slabtop: every cache's objects, active, slabs and objects per slab" diff "$TMP/st-want" "$TMP/st-got"

# ---- tools/mm/slabinfo ----
# Name Objects Objsize Space Slabs/Part/Cpu O/S O %Fr %Ef Flg; Slabs is slabs - cpu_slabs
# list_want OUT: the expected columns of every cache of $want
list_want() {
    : >"$1"
    for c in $(awk '{ print $1 }' "$want/slabinfo.tsv"); do
        echo "$(dirname_of "$c") $(val "$c" objects) $(val "$c" object_size) $(($(val "$c" slabs) - $(val "$c" cpu_slabs)))/$(val "$c" partial)/$(val "$c" cpu_slabs) $(val "$c" objs_per_slab) $(val "$c" order)" >>"$1"
    done
    sort -o "$1" "$1"
}
list_want "$TMP/si-want"
awk 'NR > 1 { print $1, $2, $3, $5, $6, $7 }' "$TMP/si-list.txt" | sort >"$TMP/si-got"
check "slabinfo: every cache's objects, size, slabs/partial/cpu, objects per slab, order" \
    diff "$TMP/si-want" "$TMP/si-got"
for c in dentry_like inode_like; do
    names=$(find "$TMP/x/slab" -maxdepth 1 -type l -lname "$(dirname_of "$c")" -printf '%f\n' | sort | xargs)
    got=$(grep -E "^$(dirname_of "$c") +<-" "$TMP/si-aliases.txt" | sed 's/.*<- //' | xargs -n1 | sort | xargs)
    check "slabinfo -a: $(dirname_of "$c") <- $names" test -n "$names" -a "$got" = "$names"
done
r=$TMP/si-report.txt
check "slabinfo -r: header" grep -qE "^Slabcache: plain +Aliases: +0 Order : +$(val plain order) Objects: $(val plain objects)$" "$r"
check "slabinfo -r: slabs" grep -qE "^Object : +$(val plain object_size)  Total  : +$(val plain slabs) " "$r"
check "slabinfo -r: partial" grep -qE "Partial: +$(val plain partial) " "$r"
check "slabinfo -r: fast paths" grep -qE "^Fastpath +$(val plain alloc_fastpath) +$(val plain free_fastpath) " "$r"
check "slabinfo -r: page allocations" grep -qE "^Page Alloc +$(val plain alloc_slab) +$(val plain free_slab) " "$r"
# -S: by total bytes, largest first: slabs * 4096 << order
for c in $(awk '{ print $1 }' "$want/slabinfo.tsv"); do
    echo "$(($(val "$c" slabs) * (4096 << $(val "$c" order)))) $(dirname_of "$c")"
done | sort -k1,1nr -k2 | awk '{ print $2 }' >"$TMP/size-want"
awk 'NR > 1 { print $1 }' "$TMP/si-size.txt" >"$TMP/size-got"
check "slabinfo -S: caches by size" diff "$TMP/size-want" "$TMP/size-got"
# -D: Name Objects Alloc Free ...
for c in plain dentry_like; do
    a=$(($(val "$c" alloc_fastpath) + $(val "$c" alloc_slowpath)))
    f=$(($(val "$c" free_fastpath) + $(val "$c" free_slowpath)))
    check "slabinfo -D: $c allocs $a frees $f" \
        grep -qE "^$(dirname_of "$c") +$(val "$c" objects) +$a +$f " "$TMP/si-activity.txt"
done
# -n: slabs per node of every cache
node_of() { tr ' ' '\n' <"$want/$1/slabs" | sed -n "s/^N$2=//p" | grep . || echo 0; }
for c in $(awk '{ print $1 }' "$want/slabinfo.tsv"); do
    echo "$(dirname_of "$c") $(node_of "$c" 0) $(node_of "$c" 1)"
done | sort >"$TMP/numa-want"
awk 'NR > 3 && NF == 3' "$TMP/si-numa.txt" | sort | awk '{ print $1, $2, $3 }' >"$TMP/numa-got"
check "slabinfo -n: slabs per node" diff "$TMP/numa-want" "$TMP/numa-got"
check "slabinfo -T: caches" \
    grep -qE "^Slabcaches : +$(wc -l <"$want/slabinfo.tsv") " "$TMP/si-totals.txt"

# ---- tools/mm/slabinfo on the legacy export: cpu slabs and CPU partial lists ----
want=$TMP/legacy/want
tree=$TMP/legacy/x/slab
list_want "$TMP/li-want"
awk 'NR > 1 { print $1, $2, $3, $5, $6, $7 }' "$TMP/li-list.txt" | sort >"$TMP/li-got"
check "legacy slabinfo: every cache's objects, size, slabs/partial/cpu, objects per slab, order" \
    diff "$TMP/li-want" "$TMP/li-got"
check "legacy slabinfo: the Cpu column is not 0" test "$(val t512 cpu_slabs)" -gt 0
r=$TMP/li-report.txt
check "legacy slabinfo -r: CpuSlab" grep -qE "  CpuSlab: +$(val t512 cpu_slabs) " "$r"
check "legacy slabinfo -r: Full = slabs - partial - cpu_slabs" \
    grep -qE "  Full   : +$(($(val t512 slabs) - $(val t512 partial) - $(val t512 cpu_slabs))) " "$r"
check "legacy slabinfo -r: Cpu partial list alloc/free" \
    grep -qE "^Cpu partial list +$(val t512 cpu_partial_alloc) +$(val t512 cpu_partial_free) " "$r"
check "legacy slabinfo -r: CPU partial frees happened" test "$(val t512 cpu_partial_free)" -gt 0
check "legacy slabinfo -r: RemoteObj/SlabFrozen" \
    grep -qE "^RemoteObj/SlabFrozen +$(val t512 deactivate_remote_frees) +$(val t512 free_frozen) " "$r"
finish
