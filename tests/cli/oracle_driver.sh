#!/usr/bin/env bash
# tests/cli/oracle_driver.sh: the kernel oracle's debugging operations
# (docs/kernel-oracle.md) without a kernel: translate.py turns the
# slub_kunit scenarios into the driver's lines (validate, write, krealloc,
# kfree, an alloc's requested size) or refuses them with the reason, per
# release; record.py counts the reports of a kernel log the way
# lib/slub_kunit.c counts slab_errors, in both report formats (6.1's
# "BUG <cache> (...): <what> overwritten", 6.12 on "[<what> overwritten]");
# and `oracle check` compares "slab_errors" with the engine's count.
. "$(dirname "$0")/lib.bash"

drv=tests/oracle/driver
progs=()
for f in tests/slub_kunit/*.json; do
    progs+=("$(basename "$f" .json)=$f")
done

# ---- translate.py -----------------------------------------------------------
python3 $drv/translate.py --kernel 7.3 --dir "$TMP/t73" "${progs[@]}" >"$TMP/t73.txt" 2>"$TMP/err"
check "7.3: five programs translated" grep -qx 'group n1 5' "$TMP/t73.txt"
check "7.3: a write by address refused without the engine" grep -q '^refused test_first_word: .*key "addr": addresses are the engine.s, and no engine' "$TMP/t73.txt"
check "7.3: a destroy with a live object refused" grep -q '^refused test_leak_destroy: .*while it has live objects' "$TMP/t73.txt"
id() { grep -lx "$2" "$TMP/$1"/n1/*.id | sed 's/\.id$//'; }
p=$(id t73 test_clobber_zone)
check "test_clobber_zone: the write into the red zone" grep -qx 'write 0 0 64 1 18' "$p.0"
check "test_clobber_zone: validate through sysfs" grep -qx 'sys 0 TestSlub_RZ_alloc validate' "$p.prog"
p=$(id t73 test_kmalloc_redzone_access)
check "test_kmalloc_redzone_access: SLAB_KMALLOC passed" grep -q '^create 0 0 slublab-TestSlub_RZ_kmalloc 32 0 SLAB_KMALLOC|' "$p.0"
check "test_kmalloc_redzone_access: 18 bytes requested" grep -qx 'alloc 0 0 0 -1 GFP_KERNEL 18' "$p.0"
p=$(id t73 test_krealloc_redzone_zeroing)
check "test_krealloc_redzone_zeroing: krealloc" grep -qx 'krealloc 0 0 40 GFP_KERNEL|__GFP_ZERO' "$p.0"
check "test_krealloc_redzone_zeroing: the moved object's kfree" grep -qx 'kfree 0 0' "$p.3"

python3 $drv/translate.py --kernel 7.3 --dir "$TMP/t73e" --engine "$BIN" "${progs[@]}" >"$TMP/t73e.txt" 2>"$TMP/err"
check "7.3 with the engine: eight programs translated" grep -qx 'group n1 8' "$TMP/t73e.txt"
p=$(id t73e test_clobber_redzone_free)
check "test_clobber_redzone_free: the engine's address is the freed object of slot 0" \
    [ "$(tail -2 "$p.0" | tr '\n' ' ')" = "free 0 0 write 0 0 64 1 171 " ]
p=$(id t73e test_clobber_50th_byte)
check "test_clobber_50th_byte: the 50th byte" grep -qx 'write 0 0 50 1 154' "$p.0"
# an address the engine handed out again is the latest object's; a freed
# object whose cache allocated since may be another in the kernel: refused
reuse() { # OPS...: a poisoned cache's ops, then validate
    local ops
    ops=$(printf '%s,' "$@")
    printf '{"format": 1, "name": "reuse", "caches": [{"name": "P", "object_size": 64, "flags": ["SLAB_POISON"]}],
 "ops": [%s, {"op": "validate", "cache": "P"}, {"op": "mark", "name": "v"}]}\n' "${ops%,}" >"$TMP/reuse.json"
    rm -rf "$TMP/tr"
    python3 $drv/translate.py --kernel 7.3 --dir "$TMP/tr" --engine "$BIN" "reuse=$TMP/reuse.json" >"$TMP/tr.txt"
}
a() { echo "{\"op\": \"alloc\", \"cpu\": 0, \"cache\": \"P\", \"name\": \"$1\"}"; }
f() { echo "{\"op\": \"free\", \"cpu\": 0, \"name\": \"$1\"}"; }
w='{"op": "write", "addr": "0xffff888100000000", "count": 1, "value": 120}'
reuse "$(a p)" "$(f p)" "$(a q)" "$w" "$(f q)"
check "the address allocated again: the new object's" grep -qx 'write 0 1 0 1 120' "$TMP"/tr/n1/00000.0
reuse "$(a p)" "$(a q)" "$(f p)" "$(f q)" "$(a r)" "$w" "$(f r)"
check "a freed object after its cache allocated again refused" \
    grep -q '^refused reuse: .*allocated or was destroyed since' "$TMP/tr.txt"
reuse "$(a p)" "$(a q)" "$(f p)" "$w" "$(f q)"
check "a freed object, nothing allocated since: its slot" grep -qx 'write 0 0 0 1 120' "$TMP"/tr/n1/00000.0

python3 $drv/translate.py --kernel 6.1 --dir "$TMP/t61" --engine "$BIN" "${progs[@]}" >"$TMP/t61.txt" 2>"$TMP/err"
check "6.1: the four clobbers" grep -qx 'group n1 4' "$TMP/t61.txt"
check "6.1: SLAB_KMALLOC refused" grep -q '^refused test_kmalloc_redzone_access: .*flag SLAB_KMALLOC: kmem_cache_create() takes it from 6.2 on' "$TMP/t61.txt"
check "6.1: kfree_rcu refused" grep -q '^refused test_kfree_rcu: .*recorded on 7.x kernels only' "$TMP/t61.txt"

# validate only where the kernel's file runs it: a debug cache
cat >"$TMP/plain.json" <<'EOF'
{"format": 1, "caches": [{"name": "plain", "object_size": 64}],
 "ops": [{"op": "alloc", "cpu": 0, "cache": "plain", "name": "p"},
         {"op": "validate", "cache": "plain"}]}
EOF
python3 $drv/translate.py --kernel 7.3 --dir "$TMP/tp" "plain=$TMP/plain.json" >"$TMP/tp.txt"
check "validate of a cache without debug flags refused" grep -q '^refused plain: .*checks debug caches only' "$TMP/tp.txt"

# ---- record.py: reports counted from the kernel log -------------------------
mkdir -p "$TMP/progs" "$TMP/rec"
echo '{}' >"$TMP/progs/k.json"
echo '{}' >"$TMP/progs/old.json"
# one run of program k: SLUB's report of a clobbered right red zone at $3
k_run() { # RUN TIME ADDRESS
    cat <<EOF
run $1
mark validated
kmsg [    $2] [Right Redzone overwritten] $3-$3 @offset=64. First byte 0x12 instead of 0xcc
kmsg [    $2] BUG slublab-A (Tainted: G    B              ): Object corrupt
kmsg [    $2] FIX slublab-A: Restoring Right Redzone $3-$3=0xcc
cache A
objects 16
cache B
objects 0
mark end
cache A
objects 16
EOF
}
{
    printf 'oracle-begin\nkernel 7.3.4\nnode 0 0-3\nprogram k\n'
    k_run 1 3.210001 0xffff888003a1d040
    k_run 2 4.1 0x1
    echo 'done k'
    cat <<'EOF'
program old
run 1
mark m
kmsg BUG slublab-B (Not tainted): Poison overwritten
kmsg FIX slublab-B: Restoring Poison 0x(____ptrval____)-0x(____ptrval____)=0x6b
kmsg SLUB slublab-B: 1 partial slabs counted but counter=0
kmsg FIX slublab-B: Object at 0xffff888003a1d040 not freed
cache B
objects 1
run 2
mark m
cache B
objects 1
done old
oracle-end
EOF
} >"$TMP/data.txt"
python3 $drv/record.py boot --data "$TMP/data.txt" --progs "$TMP/progs" --out "$TMP/rec" --nodes 1 >"$TMP/rec.txt"
check "both programs recorded" grep -qx 'recorded 2' "$TMP/rec.txt"
k=$TMP/rec/programs/k.out
check "the report's kind, addresses left out" grep -qx '# report A: Right Redzone overwritten' "$k"
check "slab_fix's line its own report" grep -qx '# report A: FIX Restoring Right Redzone' "$k"
check "no kmsg line kept" not grep -q '^kmsg' "$k"
sed -n '/^run 1$/,/^run 2$/p' "$k" | grep -A1 '^cache ' | grep '^slab_errors' >"$TMP/counts"
check "6.12+ format: 2 reports (the Object corrupt header is the same report), counted on" \
    [ "$(tr '\n' ' ' <"$TMP/counts")" = "slab_errors 2 slab_errors 0 slab_errors 2 " ]
check "each run counts from 0" [ "$(grep -c '^slab_errors 2$' "$k")" = 4 ]
o=$TMP/rec/programs/old.out
check "6.1 format: BUG, FIX, a count found wrong and a FIX, 4 reports" \
    [ "$(grep '^slab_errors' "$o" | tr '\n' ' ')" = "slab_errors 4 slab_errors 0 " ]
check "an address inside a report's words" grep -qx '# report B: FIX Object at <addr> not freed' "$o"
check "an address not yet hashed left out" grep -qx '# report B: FIX Restoring Poison' "$o"

# ---- oracle check compares slab_errors --------------------------------------
root=$TMP/repo
fx=$TMP/work/programs
mkdir -p "$fx" "$root/tests/oracle/7.3"
cp tests/oracle/not-compared.txt "$root/tests/oracle/"
printf '# none\n' >"$root/tests/oracle/known-differences.txt"
cp "$TMP/t73/n1/test_clobber_zone.json" "$fx/test_clobber_zone.json"
sl oracle engine --program "$fx/test_clobber_zone.json" --kernel 7.3 \
    --topology "cpus=4 nodes=1 cpu_node=0,0,0,0" -o "$fx/test_clobber_zone.out"
check "the engine's .out carries slab_errors" grep -qx 'slab_errors 2' "$fx/test_clobber_zone.out"
scripts/pack-fixtures pack "$fx" "$root/tests/oracle/7.3/programs.tar.gz" || bad "pack-fixtures pack"
sl oracle check --root "$root"
check "the engine against its own count passes" [ "$status" -eq 0 ]
sed -i 's/^slab_errors 2$/slab_errors 1/' "$fx/test_clobber_zone.out"
scripts/pack-fixtures pack "$fx" "$root/tests/oracle/7.3/programs.tar.gz" || bad "pack-fixtures pack"
sl oracle check --root "$root"
check "another count fails" [ "$status" -eq 1 ]
check "naming slab_errors" grep -q '^DIFF 7.3 test_clobber_zone mark validated cache TestSlub_RZ_alloc file slab_errors' "$TMP/out"

finish
