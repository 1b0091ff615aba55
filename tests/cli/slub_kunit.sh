#!/usr/bin/env bash
# Every test case of lib/slub_kunit.c in the releases slublab models, as
# scenarios (tests/slub_kunit/): each runs on every release whose
# slub_kunit has the case, and its expectations hold there: the kernel's
# error counts (slab_errors) and the bytes the test reads.  6.1 has no
# kmalloc red zone yet: the same writes past an 18-byte request go unseen.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$root/tests/slub_kunit

# case: the first release whose slub_kunit has it
cases="test_clobber_zone:6.1 test_next_pointer:6.1 test_first_word:6.1
test_clobber_50th_byte:6.1 test_clobber_redzone_free:6.1
test_kmalloc_redzone_access:6.12 test_kfree_rcu:6.12 test_leak_destroy:6.12
test_krealloc_redzone_zeroing:6.12 test_kfree_rcu_wq_destroy:6.18"
releases="6.1 6.12 6.18 7.2 7.3"

newer_or_same() { # A B: release A is B or later
    [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$2" ]
}

nr=0
for c in $cases; do
    name=${c%%:*}
    since=${c#*:}
    check "$name.json exists" test -f "$dir/$name.json"
    for r in $releases; do
        newer_or_same "$r" "$since" || continue
        sl run "$dir/$name.json" --kernel "$r"
        nr=$((nr + 1))
        check "$name on $r: exit status 0 (got $status)" test "$status" = 0
        check "$name on $r: every expectation passes" not grep -q '^FAIL' "$TMP/out"
        check "$name on $r: the error count is checked" grep -q 'slab_errors' "$TMP/out"
    done
done
check "44 runs (got $nr)" test "$nr" = 44

sl run "$dir/test_kmalloc_redzone_access.json" --kernel 6.1
check "6.1: no kmalloc red zone, nothing found" \
    grep -q '^FAIL validated: slab_errors == 2 (got 0)' "$TMP/out"
sl run "$dir/test_clobber_zone.json" --kernel 7.3
check "validate reports in SLUB's words" grep -q 'BUG TestSlub_RZ_alloc (Not tainted): Right Redzone overwritten' "$TMP/out"
check "and the fix" grep -q 'FIX TestSlub_RZ_alloc: Restoring Right Redzone' "$TMP/out"
finish
