#!/usr/bin/env bash
# tests/big/big_session.sh: a session of two million operations, from a
# kmem trace, in a small memory budget (release build only: ctest
# big_session).  `slublab replay --db` stores the trace as an op log
# (docs/oplog.md); a server with --session-memory 48 opens it (replaying the
# log from the store) and must answer seeks with the same states as a fresh
# replay to each position (a second server that keeps no checkpoint but the
# empty machine, so each answer is the log replayed from its start, forward),
# before and after a restart on the same database, which opens the session
# from the checkpoint images the first server kept in it (and the fresh
# server keeps and reads none: --stored-checkpoint-ops 0).  Not a timing test.
. "$(dirname "$0")/../cli/lib.bash"
events=${BIG_SESSION_EVENTS:-2100000}

# a trace: 20,000 object slots over 4 caches and 4 CPUs, each event frees the
# slot's object or allocates one into it (so every event is an operation)
awk -v n="$events" 'BEGIN {
    print "# tracer: nop"; print "#"
    printf "# entries-in-buffer/entries-written: %d/%d   #P:4\n#\n", n, n
    split("dentry buffer_head radix_tree_node", name); split("192 104 576", size)
    x = 1
    for (i = 0; i < n; i++) {
        x = (x * 69069 + 1) % 4294967296
        slot = int(x / 65536) % 20000; cpu = int(x / 16) % 4; k = slot % 4
        ts = sprintf("%d.%06d", 100 + int(i / 1000000), i % 1000000)
        ptr = sprintf("%016x", 1048576 + slot * 1024)
        head = sprintf("          task-%d    [%03d] .....  %s: ", 1000 + cpu, cpu, ts)
        if (used[slot]) {
            if (k == 3) print head "kfree: call_site=f+0x1/0x10 ptr=" ptr
            else print head "kmem_cache_free: call_site=f+0x1/0x10 ptr=" ptr " name=" name[k + 1]
            used[slot] = 0
        } else {
            if (k == 3) print head "kmalloc: call_site=f+0x1/0x10 ptr=" ptr " bytes_req=60 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false"
            else print head "kmem_cache_alloc: call_site=f+0x1/0x10 ptr=" ptr " name=" name[k + 1] " bytes_req=" size[k + 1] " bytes_alloc=" size[k + 1] " gfp_flags=GFP_KERNEL node=-1 accounted=false"
            used[slot] = 1
        }
    }
}' >"$TMP/trace.txt"

sl replay "$TMP/trace.txt" --db "$TMP/big.db"
check "replay --db: exit 0" test "$status" -eq 0
id=$(sed -n 's/^session \([a-z0-9]*\) saved in .*/\1/p' "$TMP/out")
ops=$(sed -n 's/^session .* (\([0-9]*\) operations, .*/\1/p' "$TMP/out")
check "replay --db: a session of at least 2,000,000 operations" test "${ops:-0}" -ge 2000000
check "replay --db: the operations are an op log in the database" \
    test "$(sqlite3 "$TMP/big.db" "select sum(ops) from oplogs")" = "$ops"
check "replay --db: no scenario JSON holds them" \
    test "$(sqlite3 "$TMP/big.db" "select max(length(text)) from scenarios")" -lt 4096

# start_server NAME ARGS...: `slublab serve` on a free port; its URL in $url
start_server() {
    local name=$1
    shift
    "$BIN" serve --port 0 --db "$TMP/big.db" --quiet "$@" >"$TMP/$name.out" 2>&1 &
    pid=$!
    url=
    for _ in $(seq 300); do
        url=$(grep -oE 'http://[^ ]+' "$TMP/$name.out" | head -1 | sed 's|/$||')
        [ -n "$url" ] && break
        sleep 0.1
    done
}
stop_server() {
    kill "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}

small=(--session-memory 48 --memory-mb 96)
start_server small "${small[@]}"
small_pid=$pid small_url=$url
start_server fresh --checkpoint-every 1073741824 --stored-checkpoint-ops 0 --session-memory 256 --memory-mb 512
fresh_pid=$pid fresh_url=$url
if [ -z "$small_url" ] || [ -z "$fresh_url" ]; then
    bad "the servers did not start"
    stop_server "$small_pid"
    stop_server "$fresh_pid"
    finish
fi
curl -s "$small_url/api/sessions/$id" >"$TMP/session.json"
evs=$(node -e 'const s = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(s.events)' <"$TMP/session.json")
check "the small server opens the session" test "${evs:-0}" -gt "$ops"
check "the session fits its 48 MiB" node -e '
    const s = JSON.parse(require("fs").readFileSync(0, "utf8"));
    process.exit(s.memory.bytes <= s.memory.limit && s.memory.limit === 48 << 20 && s.checkpoints.count >= 2 ? 0 : 1)' <"$TMP/session.json"

# positions: the ends, both sides of a chunk boundary region, and random ones, in order
points=$(node -e '
    const n = Number(process.argv[1]); let x = 7; const p = new Set([0, 1, n - 1, n]);
    while (p.size < 10) { x = (x * 48271) % 2147483647; p.add(x % n); }
    console.log([...p].sort((a, b) => a - b).join(" "))' "$evs")
same=0
for at in $points; do
    curl -s "$fresh_url/api/sessions/$id/state?at=$at" >"$TMP/fresh-$at.json"
    curl -s "$small_url/api/sessions/$id/state?at=$at" >"$TMP/small-$at.json"
    if json_doc "$TMP/fresh-$at.json" && grep -q '"state"' "$TMP/fresh-$at.json" &&
        cmp -s "$TMP/fresh-$at.json" "$TMP/small-$at.json"; then
        same=$((same + 1))
    else
        echo "state at $at differs from a fresh replay"
    fi
done
check "every sampled state equals a fresh replay's (10 positions)" test "$same" -eq 10
stop_server "$small_pid"

check "the small server kept checkpoint images in the database" node -e '
    const s = JSON.parse(require("fs").readFileSync(0, "utf8"));
    process.exit(s.checkpoints.written >= 2 && s.checkpoints.build_replayed === s.ops ? 0 : 1)' <"$TMP/session.json"

# a restart on the same database: the session opens from the stored images
# (no operation of the log replayed) and seeks the same
start_server again "${small[@]}"
again_pid=$pid
curl -s "$url/api/sessions/$id" >"$TMP/again.json"
check "after a restart, the session opens from its stored images, replaying nothing" node -e '
    const s = JSON.parse(require("fs").readFileSync(0, "utf8"));
    process.exit(s.checkpoints.build_loaded === true && s.checkpoints.build_replayed === 0 ? 0 : 1)' <"$TMP/again.json"
same=0
for at in $(echo "$points" | tr ' ' '\n' | sort -rn | head -4); do
    curl -s "$url/api/sessions/$id/state?at=$at" >"$TMP/again-$at.json"
    cmp -s "$TMP/fresh-$at.json" "$TMP/again-$at.json" && same=$((same + 1))
done
check "after a restart, the states are the same (4 positions)" test "$same" -eq 4
stop_server "$again_pid"
stop_server "$fresh_pid"
finish
