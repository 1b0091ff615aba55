#!/usr/bin/env python3
"""Write scenarios/maple-prefill-kfree-rcu.json.

A maple-tree-like workload: on each of 8 CPUs (2 nodes), repeatedly
prefill a sheaf, allocate one to three nodes from it, return it, and free
as many old nodes with kfree_rcu; grace periods come at random gaps.  The
scenario format has no loops over CPUs or random counts, so the ops are
written out here: k cycles 1, 2, 3, and for each k every CPU keeps two name
sets (a, b)
so that one phase frees what the previous one allocated.
"""
import json
import sys

CPUS = 8
ROUNDS = 400  # repeat count of the two-phase body

def cycle(cpu, k, new, old):
    ops = [{"op": "prefill", "cpu": cpu, "cache": "maple_node", "count": 3,
            "name": f"s{cpu}"}]
    for j in range(k):
        ops.append({"op": "alloc_from_sheaf", "cpu": cpu, "sheaf": f"s{cpu}",
                    "name": f"{new}{cpu}_{j}"})
    ops.append({"op": "return_sheaf", "cpu": cpu, "sheaf": f"s{cpu}"})
    for j in range(k):
        ops.append({"op": "kfree_rcu", "cpu": cpu, "name": f"{old}{cpu}_{j}"})
    return ops

body = []
for k in (1, 2, 3):
    for new, old in (("a", "b"), ("b", "a")):
        # every CPU allocates k new nodes from a prefilled sheaf, then frees
        # the k nodes it allocated one phase earlier (set k of the other name)
        for cpu in range(CPUS):
            body += cycle(cpu, k, f"{new}{k}_", f"{old}{k}_")

setup = []
for k in (1, 2, 3):
    for cpu in range(CPUS):
        for j in range(k):
            setup.append({"op": "alloc", "cpu": cpu, "cache": "maple_node",
                          "name": f"b{k}_{cpu}_{j}"})

scenario = {
    "format": 1,
    "name": "maple-prefill-kfree-rcu",
    "title": "Maple-tree-like prefill and kfree_rcu on 8 CPUs: BARN_REFILL before and after",
    "description": (
        "A workload shaped like the maple tree's use of SLUB: a cache like maple_node "
        "(256-byte objects, sheaf capacity 32 requested) on 8 CPUs across 2 nodes. Each "
        "CPU repeatedly prefills a sheaf (kmem_cache_prefill_sheaf), allocates one to three "
        "nodes from it, returns it, and frees as many older nodes with kfree_rcu. Grace "
        "periods come at random gaps. The kfree_rcu objects gather in rcu_free sheaves; "
        "after each grace period a full one is parked in the barn if it has fewer than 10 "
        "full sheaves, else flushed to slabs. Before the change (BARN_REFILL=before) the "
        "prefill path refills only from slabs, so the barn's full sheaves are never used "
        "and every later RCU sheaf is flushed (barn_put_fail, sheaf_flush) while refills "
        "take objects from slabs again (sheaf_refill, alloc_slab). After it, prefill takes "
        "objects from the barn first: barn_get and barn_put rise, and flushes, refills and "
        "slab churn fall. Run `slublab compare scenarios/maple-prefill-kfree-rcu.json "
        "--variant BARN_REFILL`."),
    "model": "sheaves",
    "seed": 7,
    "machine": {"cpus": CPUS, "nodes": 2, "cpu_node": [0, 0, 0, 0, 1, 1, 1, 1],
                "mem_mb_per_node": 64},
    "config": {"rcu_mode": "random", "rcu_gap": 40},
    "variants": {"BARN_REFILL": "after"},
    "caches": [{"name": "maple_node", "object_size": 256, "sheaf_capacity": 32}],
    "ops": setup + [{"op": "repeat", "times": ROUNDS, "ops": body},
                    {"op": "mark", "name": "end-of-work"}],
    "expect": [
        {"at": "end-of-work", "metric": "barn_get", "op": ">", "value": 100},
        {"at": "end-of-work", "metric": "barn_put", "op": ">", "value": 100},
        {"at": "end-of-work", "metric": "sheaf_refill", "op": "<", "value": 2000},
    ],
}
json.dump(scenario, sys.stdout, indent=1)
sys.stdout.write("\n")
