#!/usr/bin/env bash
# tests/cli/scenario_errors.sh: malformed scenarios are rejected before
# anything runs, with exit status 2 and a message naming the file, the
# operation path and the key.  $1 is the slublab program.
. "$(dirname "$0")/lib.bash"

# The valid prefix most cases share: a 2-CPU, 1-node machine and cache A.
HEAD='"format": 1, "name": "t", "machine": {"cpus": 2, "nodes": 1},
 "caches": [{"name": "A", "object_size": 64}]'
n=0

# reject "FRAGMENT..." SUBSTRING...: the scenario must fail with every SUBSTRING
# (and the file name) in the message.
reject() {
    local body=$1
    shift
    n=$((n + 1))
    local file="$TMP/case$n.json"
    printf '%s\n' "$body" >"$file"
    sl run "$file"
    if [ "$status" -ne 2 ]; then
        bad "case $n ($1): exit $status, expected 2"
        return
    fi
    local want
    for want in "case$n.json: " "$@"; do
        if ! grep -qF -- "$want" "$TMP/err"; then
            bad "case $n: message lacks '$want': $(cat "$TMP/err")"
            return
        fi
    done
    ok
}

reject "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpu\": 0, \"cache\": \"A\"},
  {\"op\": \"alloc\", \"cpux\": 0, \"cache\": \"A\"}]}" \
    'ops[1]: unknown key "cpux"'
reject "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpu\": \"0\", \"cache\": \"A\"}]}" \
    'ops[0]: key "cpu": expected an integer, got a string'
reject "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpu\": 0}]}" \
    'ops[0]: missing key "cache"'
reject "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpu\": 0, \"cache\": \"B\"}]}" \
    'ops[0]: key "cache"' '"B"'
reject "{$HEAD, \"ops\": [{\"op\": \"free\", \"cpu\": 0, \"name\": \"nope\"}]}" \
    'ops[0]: key "name"' '"nope"'
reject "{$HEAD, \"ops\": [{\"op\": \"alloc_bulk\", \"cpu\": 0, \"cache\": \"A\", \"count\": 2, \"name\": \"b\"},
  {\"op\": \"free\", \"cpu\": 0, \"name\": \"c[1]\"}]}" \
    'ops[1]: key "name"' '"c"'
reject "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpu\": 2, \"cache\": \"A\"}]}" \
    'ops[0]: key "cpu": 2 is not below machine.cpus (2)'
reject "{$HEAD, \"ops\": [{\"op\": \"kmalloc\", \"cpu\": 0, \"size\": 8, \"node\": 1}]}" \
    'ops[0]: key "node": 1 is not below machine.nodes (1)'
reject '{"format": 1, "name": "t", "machine": {"cpus": 3, "nodes": 2, "cpu_node": [0, 1]}}' \
    'machine: key "cpu_node": has 2 entries but cpus is 3'
reject '{"format": 1, "name": "t", "machine": {"cpus": 2, "nodes": 2, "cpu_node": [0, 2]}}' \
    'machine: key "cpu_node": cpu_node[1] = 2 is not below nodes (2)'
reject "{$HEAD, \"ops\": [{\"op\": \"alloc_bulk\", \"cpu\": 0, \"cache\": \"A\", \"count\": -1}]}" \
    'ops[0]: key "count": -1 is negative'
reject "{$HEAD, \"ops\": [{\"op\": \"repeat\", \"times\": 1.5, \"ops\": []}]}" \
    'ops[0]: key "times": 1.5 is not an integer'
reject "{$HEAD, \"ops\": [{\"op\": \"kmalloc\", \"cpu\": 0, \"size\": 9007199254740993}]}" \
    'ops[0]: key "size"' 'not below 2^53'
reject "{$HEAD, \"ops\": [{\"op\": \"kmalloc\", \"cpu\": 0, \"size\": 4294967296}]}" \
    'ops[0]: key "size"' 'above the limit'
reject "{$HEAD, \"ops\": [{\"op\": \"mark\", \"name\": \"m\"}, {\"op\": \"mark\", \"name\": \"n\"},
  {\"op\": \"repeat\", \"times\": 2, \"ops\": [{\"op\": \"alloc\", \"cpu\": 0, \"cache\": \"A\", \"name\": \"o{i}\"},
    {\"op\": \"repeat\", \"times\": 2, \"ops\": [{\"op\": \"mark\", \"name\": \"x\"}, {\"op\": \"free\", \"cpu\": 0, \"nmae\": \"o{i}\"}]}]}]}" \
    'ops[2].ops[1].ops[1]: unknown key "nmae"'
reject '{"format": 2, "name": "t"}' 'key "format": version 2 is not supported'
reject '{"format": "1", "name": "t"}' 'key "format": expected an integer'
reject '{"name": "t"}' 'missing key "format"'
reject '{"format": 1}' 'missing key "name"'
reject "{$HEAD, \"opz\": []}" 'unknown key "opz"'
reject '[1, 2]' 'expected a JSON object at the top level'
reject "{$HEAD, \"ops\": [
  {\"op\": \"alloc\", \"cpu\": 0 \"cache\": \"A\"}]}" 'line 3' 'not valid JSON'
reject "{$HEAD, \"ops\": [{\"op\": \"dance\", \"cpu\": 0}]}" 'ops[0]: key "op": unknown operation "dance"'
reject "{$HEAD, \"ops\": [{\"cpu\": 0}]}" 'ops[0]: missing key "op"'
reject "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpu\": 0, \"cpu\": 1, \"cache\": \"A\"}]}" \
    'ops[0]: duplicate key "cpu"'
reject "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpu\": 0, \"cache\": \"A\", \"name\": \"o{i}\"}]}" \
    'ops[0]: key "name": "{i}" is only allowed inside a repeat'
reject "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpu\": 0, \"cache\": \"A\", \"name\": \"x\"},
  {\"op\": \"free\", \"cpu\": 0, \"name\": \"x\", \"addr\": \"0x10\"}]}" \
    'ops[1]: give exactly one of "name" and "addr"'
reject "{$HEAD, \"ops\": [{\"op\": \"free\", \"cpu\": 0, \"addr\": \"0xffff888000001000\"}]}" \
    'ops[0]: missing key "cache" (required with "addr")'
reject "{$HEAD, \"ops\": [{\"op\": \"kfree\", \"cpu\": 0, \"addr\": \"ffff888000001000\"}]}" \
    'ops[0]: key "addr"'
reject "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpu\": 0, \"cache\": \"A\", \"gfp\": \"GFP_SOMETIMES\"}]}" \
    'ops[0]: key "gfp"' 'GFP_SOMETIMES'
reject '{"format": 1, "name": "t", "caches": [{"name": "A", "object_size": 64},
  {"name": "B", "object_size": 64, "flags": ["SLAB_HWCACHE_ALIGN", "SLAB_SHINY"]}]}' \
    'caches[1]: key "flags": unknown flag "SLAB_SHINY"'
reject '{"format": 1, "name": "t", "caches": [{"name": "A"}]}' 'caches[0]: missing key "object_size"'
reject '{"format": 1, "name": "t", "caches": [{"op": "create", "name": "A", "object_size": 8}]}' \
    'caches[0]: unknown key "op"'
reject '{"format": 1, "name": "t", "variants": {"DEFERRED_FREELIST": "later"}}' \
    'variants: key "DEFERRED_FREELIST": expected "before" or "after"'
reject '{"format": 1, "name": "t", "variants": {"NO_SUCH_PATCH": "after"}}' \
    'variants: unknown variant "NO_SUCH_PATCH"'
reject '{"format": 1, "name": "t", "model": "slob"}' 'key "model": unknown model "slob"'
reject '{"format": 1, "name": "t", "config": {"freelist_hardened": 1}}' \
    'config: key "freelist_hardened": expected a boolean'
reject '{"format": 1, "name": "t", "machine": {"mem_mb_per_node": 6}}' \
    'machine: key "mem_mb_per_node": must be a multiple of 4'
reject '{"format": 1, "name": "t", "machine": {"cpus": 65}}' 'machine: key "cpus"' 'above the limit'
reject "{$HEAD, \"expect\": [{\"at\": \"nowhere\", \"metric\": \"alloc_fastpath\", \"op\": \"==\", \"value\": 1}]}" \
    'expect[0]: key "at": no mark named "nowhere"'
reject "{$HEAD, \"expect\": [{\"at\": \"end\", \"metric\": \"alloc_fastpath\", \"op\": \"==\", \"value\": 1},
  {\"at\": \"end\", \"metric\": \"A.bogus_counter\", \"op\": \"==\", \"value\": 1}]}" \
    'expect[1]: key "metric": "A.bogus_counter"'
reject "{$HEAD, \"expect\": [{\"at\": \"end\", \"metric\": \"Z.slabs\", \"op\": \"==\", \"value\": 1}]}" \
    'expect[0]: key "metric": no cache named "Z"'
reject "{$HEAD, \"expect\": [{\"at\": \"end\", \"metric\": \"A.cpu2.alloc_fastpath\", \"op\": \"==\", \"value\": 1}]}" \
    'expect[0]: key "metric"' 'cpuN'
reject "{$HEAD, \"expect\": [{\"at\": \"end\", \"metric\": \"A.slabs\", \"op\": \"=~\", \"value\": 1}]}" \
    'expect[0]: key "op": "=~"'
reject "{$HEAD, \"expect\": [{\"at\": \"end\", \"metric\": \"A.slabs\", \"op\": \"==\", \"value\": -2}]}" \
    'expect[0]: key "value": -2 is negative'
reject "{$HEAD, \"ops\": [{\"op\": \"repeat\", \"times\": 100000, \"ops\": [
  {\"op\": \"repeat\", \"times\": 1000, \"ops\": [{\"op\": \"mark\", \"name\": \"m\"}]}]}]}" \
    'ops[0]: key "times": the repeat runs more than'
reject "{$HEAD, \"ops\": [{\"op\": \"mark\", \"name\": \"end\"}]}" 'ops[0]: key "name": "end" is reserved'

# References that only the replay can check: the name was freed already.
reject "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpu\": 0, \"cache\": \"A\", \"name\": \"x\"},
  {\"op\": \"free\", \"cpu\": 0, \"name\": \"x\"},
  {\"op\": \"repeat\", \"times\": 2, \"ops\": [{\"op\": \"free\", \"cpu\": 1, \"name\": \"x\"}]}]}" \
    'ops[2].ops[0] (iteration 0): key "name": "x" names no live object'

# compare rejects the same files the same way.
printf '%s\n' "{$HEAD, \"ops\": [{\"op\": \"alloc\", \"cpux\": 0, \"cache\": \"A\"}]}" >"$TMP/c.json"
reject "{$HEAD, \"ops\": [{\"op\": \"create\", \"name\": \"B\", \"object_size\": 8, \"aliases\": \"x\"}]}" \
    'ops[0]: key "aliases": expected an array of names, got a string'
reject "{$HEAD, \"ops\": [{\"op\": \"create\", \"name\": \"B\", \"object_size\": 8, \"aliases\": [1]}]}" \
    'ops[0]: key "aliases": expected a string, got a number'

# An alias names the cache it belongs to.
printf '%s\n' "{$HEAD, \"ops\": [{\"op\": \"create\", \"name\": \"B\", \"object_size\": 8,
  \"aliases\": [\"B-alias\"]}, {\"op\": \"alloc\", \"cpu\": 0, \"cache\": \"B-alias\"}],
  \"expect\": [{\"at\": \"end\", \"metric\": \"B.objects\", \"op\": \">=\", \"value\": 1}]}" >"$TMP/alias.json"
sl run "$TMP/alias.json"
check "an alloc through an alias runs (exit $status)" [ "$status" -eq 0 ]
check "the alias's allocation counts in its cache" grep -qF 'PASS end: B.objects >= 1' "$TMP/out"

sl compare "$TMP/c.json" --variant DEFERRED_FREELIST
check "compare rejects a malformed scenario with exit 2" [ "$status" -eq 2 ]
check "compare names the key" grep -qF 'ops[0]: unknown key "cpux"' "$TMP/err"

finish
