#!/usr/bin/env bash
# slublab replay read as a reviewer reads a real trace: a file with no kmem
# event (perf script output) is an error with the server's words, not an
# empty report; an older kernel's trace (kmem_cache_alloc without name=) is
# recognised, replayed by object size and leaves no allocation unknown;
# `slublab compare` takes a trace where it takes a scenario; `replay
# --slabinfo` takes the machine's caches from its /proc/slabinfo; frees the
# kernel made through kfree_rcu are counted as the trace's lines count them.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
slice=$root/tests/data/kmem-trace-slice.txt.gz

# --- no kmem events ---
cat >"$TMP/perf.txt" <<'TXT'
            perf  1234 [001]  1234.567890: sched:sched_switch: prev_comm=perf prev_pid=1234 prev_prio=120
            bash  5383 [000]   253.136746: probe:do_sys_open: (ffffffff81000000)
TXT
sl replay "$TMP/perf.txt"
check "no kmem events: a non-zero exit" test "$status" -eq 2
check "... with the server's message" \
    grep -qF "no kmem events in $TMP/perf.txt (kmem_cache_alloc, kmem_cache_free, kmalloc, kfree as /sys/kernel/tracing/trace prints them)" "$TMP/err"
check "... and no report" test ! -s "$TMP/out"

# --- an older kernel's trace: no name= on kmem_cache_alloc ---
gzip -dc "$slice" | sed 's/ name=[^ ]*//' >"$TMP/old.txt"
sl replay "$slice"
cp "$TMP/out" "$TMP/named"
sl replay "$TMP/old.txt"
allocs=$(grep -c 'kmem_cache_alloc: ' "$TMP/old.txt")
check "old trace: exit 0" test "$status" -eq 0
check "old trace: said so" grep -Eq "^  $allocs +kmem_cache_alloc naming no cache: an older kernel's trace" "$TMP/out"
check "old trace: every allocation replayed ($allocs)" grep -Eq "^replayed [0-9]+ operations on [0-9]+ caches: $allocs alloc," "$TMP/out"
check "old trace: no unknown cache" not grep -q 'unknown caches' "$TMP/out"
before() { grep -E "$1 of objects allocated before the trace" "$2" | awk '{print $1}'; }
check "old trace: frees blamed on earlier allocations as in the named trace" \
    test "$(before kmem_cache_free "$TMP/out")" = "$(before kmem_cache_free "$TMP/named")"
check "old trace: caches by size" grep -Eq '^size-192 ' "$TMP/out"

# --- the report ranks the caches: allocations as the trace's lines count them ---
sl replay "$slice"
for c in names_cache filp vm_area_struct anon_vma; do
    n=$(gzip -dc "$slice" | grep -c " kmem_cache_alloc: .* name=$c ")
    check "replay ranks $c with its $n kmem_cache_alloc lines" \
        grep -Eq "^$c +$n " <(sed -n '/^caches by allocations/,$p' "$TMP/out")
done
check "the ranking is by allocations" \
    sh -c "sed -n '/^caches by allocations/,\$p' '$TMP/out' | awk 'NR > 2 {print \$2}' | sort -rnc"

# --- the machine's caches from its /proc/slabinfo ---
sample=$root/tests/data/kmem-trace-sample.txt.gz
sl replay "$sample"
check "without --slabinfo: filp's object size is the trace's bytes_req (184)" grep -Eq '^filp +[0-9]+ +[0-9]+ +[0-9]+ +0 +184 +192$' "$TMP/out"
sl replay "$sample" --slabinfo "$root/tests/data/proc-slabinfo.txt"
check "replay --slabinfo: exit 0" test "$status" -eq 0
check "... filp as slabinfo has it (objsize 192, 21 a slab, 1 page)" grep -Eq '^filp +[0-9]+ +[0-9]+ +[0-9]+ +0 +192 +192$' "$TMP/out"
check "... task_struct at slabinfo's 8 pages a slab (order 3)" grep -Eq '^task_struct +[0-9]+ +[0-9]+ +[0-9]+ +3 +5824 +5824$' "$TMP/out"
sl replay "$sample" --slabinfo "$TMP/perf.txt"
check "--slabinfo of something else: exit 2" test "$status" -eq 2
check "... said so" grep -q 'not a /proc/slabinfo version 2.1 file' "$TMP/err"
sl replay "$sample" --slabinfo "$root/tests/data/proc-slabinfo.txt" --sysfs "$root/tests/data/sys-kernel-slab.tar.gz"
check "--slabinfo and --sysfs exclude each other" test "$status" -eq 2

# --- a patch compared on a real trace: compare takes the trace as it takes a scenario ---
sl replay "$slice"
filp_objects=$(awk '$1 == "filp" {print $2}' "$TMP/out")
sl compare "$slice" --variant barn_refill --cache filp --json
check "compare TRACE --variant: exit 0" test "$status" -eq 0
check "... both sides named" grep -q '"baseline":"BARN_REFILL=before","patched":"BARN_REFILL=after"' "$TMP/out"
check "... the baseline ends with replay's filp objects ($filp_objects)" \
    grep -q "{\"metric\":\"objects\",\"baseline\":$filp_objects," "$TMP/out"
sl compare "$root/tests/data/kmem-trace-sample.txt.gz" --kernel 6.18,7.3 --cache maple_node
check "compare TRACE --kernel 6.18,7.3: exit 0" test "$status" -eq 0
check "... the table, with the notes across models" grep -Eq '^alloc_fastpath +[0-9]+ +[0-9]+ .*\[1\]$' "$TMP/out"
sl replay "$slice"
busiest=$(sed -n '/^caches by allocations/,$p' "$TMP/out" | awk 'NR == 3 {print $1}')
sl compare "$slice" --variant BARN_REFILL
check "compare TRACE without --cache: the busiest cache of replay's ranking ($busiest)" \
    grep -q "^scenario kmem-trace, cache $busiest\$" "$TMP/out"
sl compare "$TMP/perf.txt" --variant BARN_REFILL
check "compare of a file with no kmem events: exit 2" test "$status" -eq 2
check "... said so" grep -q 'no kmem events in' "$TMP/err"

# --- frees the kernel made through kfree_rcu: counted, said to replay as plain frees ---
sl replay "$sample"
rcu=$(gzip -dc "$sample" | grep -E ' (kmem_cache_free|kfree): ' |
    grep -cE 'call_site=(rcu_do_batch|rcu_core|kfree_rcu|kvfree_rcu|rcu_free_sheaf)')
check "the sample has frees from the RCU callbacks ($rcu)" test "$rcu" -gt 0
check "replay counts the $rcu frees made through kfree_rcu" \
    grep -Eq "^  $rcu +frees the kernel made through kfree_rcu " "$TMP/out"
check "... and says they replay as plain frees, and why" \
    grep -Eq "^  $rcu +.*replayed as plain frees .*no kfree_rcu call and no grace period" "$TMP/out"
finish
