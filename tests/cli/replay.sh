#!/usr/bin/env bash
# slublab replay: a real kernel's kmem trace on the engine.  The committed
# slice of a trace captured on a 6.18 kernel is replayed plain, gzip, with
# CRLF line ends and cut short; the whole capture (tests/data, or
# $SLUBLAB_KMEM_SAMPLE) with the validator on.  -o must give a scenario that
# `slublab run` replays to the same caches, --db a stored session.
. "$(dirname "$0")/lib.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
slice=$root/tests/data/kmem-trace-slice.txt.gz
tree=$root/tests/data/sys-kernel-slab.tar.gz
sample=${SLUBLAB_KMEM_SAMPLE:-$root/tests/data/kmem-trace-sample.txt.gz}

# the number on the report line that ends with $2
count() { awk -v what="$2" 'index($0, what) && $1 ~ /^[0-9]+$/ { print $1; exit }' "$1"; }

sl replay "$slice" --validate
check "slice: exit 0" test "$status" -eq 0
cp "$TMP/out" "$TMP/gz.out"
check "slice: CPUs from the header" grep -q '2 CPUs (from the #P: header)' "$TMP/out"
check "slice: every line a kmem event or a comment" \
    grep -q '^1500 lines: 1488 kmem events (840 kmem_cache_alloc, 535 kmem_cache_free, 32 kmalloc, 81 kfree)' "$TMP/out"
check "slice: kfree(NULL) counted" test "$(count "$TMP/out" 'kfree(NULL)')" = \
    "$(zcat "$slice" | grep -c 'kfree: .*ptr=0000000000000000$')"
check "slice: no violation" grep -q 'validation after every operation: 0 violations' "$TMP/out"
check "slice: no unreadable line" not grep -q 'unreadable' "$TMP/out"
check "slice: cache table" grep -qE '^task_struct +[0-9]+ +[0-9]+ +[0-9]+ +3 +5824 +5824$' "$TMP/out"

# the same trace uncompressed, and with CRLF line ends: the same report
zcat "$slice" >"$TMP/plain.txt"
sl replay "$TMP/plain.txt"
check "plain: exit 0" test "$status" -eq 0
check "plain: the same replay" diff <(sed 1d "$TMP/out") <(sed 1d "$TMP/gz.out" | grep -v '^validation')
sed 's/$/\r/' "$TMP/plain.txt" >"$TMP/crlf.txt"
sl replay "$TMP/crlf.txt"
check "CRLF: the same replay" diff <(sed 1d "$TMP/out") <(sed 1d "$TMP/gz.out" | grep -v '^validation')

# garbage, an unknown event and a line over 64 KiB among the events
{
    head -20 "$TMP/plain.txt"
    echo 'complete garbage'
    echo '  bash-1 [000] ..... 1.0: sched_switch: prev_comm=a next_comm=b'
    head -c 70000 /dev/zero | tr '\0' x
    echo
    tail -n +21 "$TMP/plain.txt"
} >"$TMP/mixed.txt"
sl replay "$TMP/mixed.txt"
check "mixed: exit 0" test "$status" -eq 0
check "mixed: garbage counted" test "$(count "$TMP/out" 'unreadable lines')" = 1
check "mixed: other events counted" test "$(count "$TMP/out" 'events of other tracepoints')" = 1
check "mixed: long line counted" test "$(count "$TMP/out" 'lines over 64 KiB')" = 1
check "mixed: every kmem event still there" grep -q ' 1488 kmem events' "$TMP/out"

# a gzip stream cut short: what was read is replayed and reported, exit 1
head -c 8000 "$slice" >"$TMP/cut.gz"
sl replay "$TMP/cut.gz"
check "cut short: exit 1" test "$status" -eq 1
check "cut short: says so" grep -q 'cut short' "$TMP/err"
check "cut short: report printed" grep -q 'input ended early' "$TMP/out"
check "cut short: some events replayed" grep -qE '^[0-9]+ lines: [1-9][0-9]* kmem events' "$TMP/out"

# -o: a scenario that `slublab run` replays to the same caches
sl replay "$slice" -o "$TMP/trace.json"
check "-o: exit 0" test "$status" -eq 0
check "-o: valid JSON" json_doc "$TMP/trace.json"
cp "$TMP/out" "$TMP/o.out"
sl run "$TMP/trace.json"
check "-o: run replays it" test "$status" -eq 0
awk '/^\/sys\/kernel\/slab\// { c = $1; sub("/sys/kernel/slab/", "", c); sub("/$", "", c) }
     $1 == "objects" { o[c] = $2 } $1 == "total_objects" { t[c] = $2 }
     END { for (c in o) if (t[c] > 0) print c, o[c], t[c] }' "$TMP/out" | sort >"$TMP/run.caches"
awk 'f && NF == 7 { print $1, $2, $3 } /^cache +objects/ { f = 1 }' "$TMP/o.out" | sort >"$TMP/replay.caches"
check "-o: run ends with the replay's caches" diff "$TMP/run.caches" "$TMP/replay.caches"
check "-o: caches compared" test "$(wc -l <"$TMP/replay.caches")" -gt 30

# names a scenario cannot hold are made into valid ones in -o
printf 'a-1 [000] ..... 1.0: kmem_cache_alloc: call_site=f ptr=a1 name=we"ird{x} bytes_req=64 bytes_alloc=64\n' >"$TMP/weird.txt"
printf 'a-1 [000] ..... 1.0: kmem_cache_alloc: call_site=f ptr=a2 name=%s bytes_req=64 bytes_alloc=64\n' \
    "$(printf 'c%.0s' $(seq 45))" >>"$TMP/weird.txt"
sl replay "$TMP/weird.txt" -o "$TMP/weird.json"
check "odd names: exit 0" test "$status" -eq 0
sl run "$TMP/weird.json"
check "odd names: the scenario runs" test "$status" -eq 0
check "odd names: made valid" grep -q '^/sys/kernel/slab/we_ird_x_/$' "$TMP/out"

# --sysfs: the kernel's caches and its release
sl replay "$slice" --sysfs "$tree" --validate
check "--sysfs: exit 0" test "$status" -eq 0
check "--sysfs: names the kernel" grep -q 'from Linux 6.18.44-fc-v782' "$TMP/out"
check "--sysfs: no violation" grep -q ' 0 violations' "$TMP/out"
check "--sysfs: task_struct as the tree shows it" grep -qE '^task_struct .* 4248 +4288$' "$TMP/out"
# the tree was captured on another boot: task_struct's size (FPU state) differs from the trace's
check "--sysfs: the size disagreement is reported" grep -qE '^ +they are:.* task_struct' "$TMP/out"

# trace -> scenario -> export: /proc/slabinfo agrees with the replay, and the
# merged caches' other names come back as symbolic links
sl replay "$slice" --sysfs "$tree" -o "$TMP/sysfs-trace.json"
cp "$TMP/out" "$TMP/sysfs-trace.out"
sl export "$TMP/sysfs-trace.json" --slabinfo "$TMP/slabinfo" --sysfs "$TMP/slab"
check "export: exit 0" test "$status" -eq 0
awk 'f && NF == 7 { print $1, $2, $3 } /^cache +objects/ { f = 1 }' "$TMP/sysfs-trace.out" | sort >"$TMP/a"
awk 'NR > 2 && $3 > 0 { print $1, $2, $3 }' "$TMP/slabinfo" | sort >"$TMP/b"
check "export: slabinfo has the replay's objects" diff "$TMP/a" "$TMP/b"
check "export: an alias of the trace's cache is a link" test -L "$TMP/slab/eventpoll_pwq"
check "export: the traced name is a link to the same cache" \
    test "$(readlink "$TMP/slab/anon_vma_chain")" = "$(readlink "$TMP/slab/eventpoll_pwq")"

# --db: a session the server lists
sl replay "$slice" --db "$TMP/lab.db"
check "--db: exit 0" test "$status" -eq 0
id=$(sed -n 's/^session \([a-z0-9]*\) saved in .*/\1/p' "$TMP/out")
check "--db: session id printed" test -n "$id"
# the server opens it
"$BIN" serve --port 0 --db "$TMP/lab.db" --quiet >"$TMP/serve.out" 2>&1 &
srv=$!
url=
for _ in $(seq 100); do
    url=$(grep -oE 'http://[^ ]+' "$TMP/serve.out" | head -1 | sed 's|/$||')
    [ -n "$url" ] && break
    sleep 0.1
done
if [ -n "$url" ] && command -v curl >/dev/null; then
    curl -s "$url/api/sessions/$id" >"$TMP/session.json"
    check "--db: the server opens the session" grep -q '"name":"kmem-trace-slice"' "$TMP/session.json"
else
    bad "--db: the server did not start"
fi
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
if command -v sqlite3 >/dev/null; then
    check "--db: session stored" test "$(sqlite3 "$TMP/lab.db" "select count(*) from sessions where id = '$id'")" = 1
else
    skip "--db: sqlite3 is not installed"
fi

# --model legacy and legacy:ERA: the same trace on the per-CPU-slab kernels
sl replay "$slice" --model legacy
check "--model legacy: exit 0" test "$status" -eq 0
check "--model legacy: named with its era" grep -q '^model legacy:ERA_DIRECT_LOAD,' "$TMP/out"
sl replay "$slice" --model legacy:frozen_partial --validate -o "$TMP/legacy.json"
check "--model legacy:ERA: exit 0 with the validator on" test "$status" -eq 0
check "--model legacy:ERA: the era named" grep -q '^model legacy:ERA_FROZEN_PARTIAL,' "$TMP/out"
check "--model legacy:ERA: the scenario keeps the era" grep -q '"model": *"legacy:ERA_FROZEN_PARTIAL"' "$TMP/legacy.json"
sl replay "$slice" --model legacy:nope
check "--model legacy:nope: exit 2" test "$status" -eq 2
check "--model legacy:nope: says why" grep -q 'unknown model "legacy:nope"' "$TMP/err"

# usage errors
sl replay
check "no trace: exit 2" test "$status" -eq 2
sl replay "$TMP/nonexistent.txt"
check "missing file: exit 2" test "$status" -eq 2
check "missing file: says why" grep -q 'No such file' "$TMP/err"
sl replay "$slice" --cpus 0
check "--cpus 0: exit 2" test "$status" -eq 2
sl replay "$slice" --model nonesuch
check "bad model: exit 2" test "$status" -eq 2
sl replay "$slice" --sysfs "$TMP"
check "empty --sysfs: exit 2" test "$status" -eq 2
sl replay --help
check "--help" grep -q 'usage: slublab replay' "$TMP/out"

# the whole capture, validator on
if [ -r "$sample" ]; then
    sl replay "$sample" --validate
    check "sample: exit 0" test "$status" -eq 0
    check "sample: 33937 events" grep -q ' 33937 kmem events' "$TMP/out"
    check "sample: no violation" grep -q 'validation after every operation: 0 violations' "$TMP/out"
    check "sample: no engine failure" not grep -qE 'simulated failures|misuse|rejected' "$TMP/out"
else
    skip "the whole sample ($sample) is not on this machine"
fi
finish
