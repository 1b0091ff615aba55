#!/usr/bin/env python3
"""Translate a slublab scenario (docs/scenario-format.md, format 1) into the
line format of slublab's kernel test driver (tests/oracle/driver/README).

Used by scripts/kernel-oracle.  For each scenario it decides whether the
kernel release can run it; if so it writes

  .prog   the driver lines, with the shell's own lines (mark, sys)
  .json   the program as it runs: the scenario with the oracle's
               machine (4 CPUs, 1 or 2 nodes) in place of its own, CPUs
               renumbered onto that machine, no expectations, no model

under DIR/<group>/, n<nodes> or n<nodes>-o<order> (<seq>.prog and the <seq>.<k> files it runs, <seq>.id
holding the id, <id>.json).  If
not, it prints "refused <id>: <file>: <why>" on stdout and writes nothing.
At the end it prints "group <group> <programs>" for each group.  Operations the kernel cannot
express are refused, never approximated.

A write by "addr" (the bytes of an object after its free, as
lib/slub_kunit.c clobbers them) needs the engine (--engine, `slublab`): it
runs the program and pairs the objects it handed out with the driver's
object slots, which number the allocations in the same order.

usage: translate.py --kernel 6.12 --dir DIR [--engine SLUBLAB] ID=SCENARIO.json ...
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

CPUS = 4
# cpu_node of the oracle's machines, by node count
TOPOLOGY = {1: [0, 0, 0, 0], 2: [0, 0, 1, 1]}
MEM_MB_PER_NODE = {1: 1024, 2: 512}
MAX_LINES = 200000

SLAB_FLAGS = {"SLAB_HWCACHE_ALIGN", "SLAB_RED_ZONE", "SLAB_POISON", "SLAB_STORE_USER",
              "SLAB_CONSISTENCY_CHECKS", "SLAB_TYPESAFE_BY_RCU", "SLAB_RECLAIM_ACCOUNT",
              "SLAB_KMALLOC"}
# the flags that make a debug cache (kmem_cache_debug(): SLAB_DEBUG_FLAGS),
# the only caches whose sysfs validate file runs validate_slab_cache()
DEBUG_FLAGS = {"SLAB_RED_ZONE", "SLAB_POISON", "SLAB_STORE_USER", "SLAB_CONSISTENCY_CHECKS"}
GFP_FLAGS = {"GFP_KERNEL", "GFP_NOWAIT", "GFP_ATOMIC", "GFP_NOIO", "GFP_NOFS", "__GFP_ZERO",
             "__GFP_NOWARN", "__GFP_NORETRY", "__GFP_RETRY_MAYFAIL", "__GFP_THISNODE",
             "__GFP_HIGH", "__GFP_NOMEMALLOC"}
NO_KERNEL_EQUIVALENT = {
    "grace_period": "a grace period at a chosen point has no kernel equivalent (RCU runs on its own)",
    "alloc_pages": "page-allocator pressure is not reproducible in a booted kernel",
    "free_pages": "page-allocator pressure is not reproducible in a booted kernel",
    "kmalloc": "the kmalloc caches are shared with the kernel itself",
    "race": "an interleaving chosen step by step cannot be imposed on a running kernel's CPUs",
}


class Refused(Exception):
    pass


def major_minor(kernel):
    a, b = kernel.split(".")
    return int(a), int(b)


def uses_addr(ops):
    """Whether a write in @ops names its object by address."""
    for op in ops:
        if op.get("op") == "write" and "addr" in op:
            return True
        if op.get("op") == "repeat" and uses_addr(op.get("ops", [])):
            return True
    return False


class Translator:
    def __init__(self, kernel, scenario, path, engine=None):
        self.kernel_text = kernel
        self.engine = engine
        self.engine_addrs = None  # the engine's objects in allocation order (write by addr)
        self.freed = {}       # freed slot -> (cache name, allocations from it at the free)
        self.allocs = {}      # cache name -> allocations from it so far
        self.kernel = major_minor(kernel)
        self.sheaves = self.kernel >= (6, 18)
        self.sc = scenario
        self.path = path
        self.lines = []
        self.caches = {}      # scenario name -> cache slot
        self.cache_info = {}  # scenario name -> (object_size, flags)
        self.cache_order = []  # live scenario cache names, creation order
        self.aliases = {}     # alias -> scenario name
        self.next_cache = 0
        self.names = {}       # object name -> slot (latest)
        self.bulks = {}       # bulk name -> (first slot, count)
        self.live = {}        # slot -> cache name
        self.next_slot = 0
        self.sheaf_names = {}  # sheaf name -> (slot, cache name)
        self.next_sheaf = 0
        self.marks = 0
        self.orders = []      # "order" of each create, None where not given

    def refuse(self, where, why):
        raise Refused("%s: %s %s" % (self.path, where, why))

    # ---- machine ----------------------------------------------------------
    def machine(self):
        m = self.sc.get("machine", {})
        cpus = m.get("cpus", 2)
        nodes = m.get("nodes", 1)
        cpu_node = m.get("cpu_node", [i * nodes // cpus for i in range(cpus)])
        for key in ("present_cpus",):
            if key in m and m[key] != cpus:
                self.refuse("machine:", "key \"%s\": the oracle's kernels count all %d CPUs" % (key, CPUS))
        if nodes > 2:
            self.refuse("machine:", "%d nodes; the oracle's machines have 1 or 2" % nodes)
        topo = TOPOLOGY[nodes]
        self.cpu_map = {}
        for node in range(nodes):
            mine = [c for c in range(cpus) if cpu_node[c] == node]
            theirs = [c for c in range(CPUS) if topo[c] == node]
            if len(mine) > len(theirs):
                self.refuse("machine:", "%d CPUs on node %d; the oracle's machine has %d there"
                            % (len(mine), node, len(theirs)))
            for a, b in zip(mine, theirs):
                self.cpu_map[a] = b
        self.nodes = nodes
        cfg = self.sc.get("config", {})
        if cfg.get("slab_debug"):
            self.refuse("config:", "slab_debug is a boot option for every cache; the oracle boots without it")
        if cfg.get("freelist_random", False):
            self.refuse("config:", "freelist_random: the oracle's kernels are built without it")
        if not cfg.get("freelist_hardened", True):
            self.refuse("config:", "freelist_hardened off: the oracle's kernels are built with it")
        if cfg.get("alloc_layout", "kernel") != "kernel":
            self.refuse("config:", "alloc_layout %s is not the kernel's" % cfg["alloc_layout"])

    def cpu(self, op, where):
        c = op.get("cpu", 0)
        return self.cpu_map[c]

    # ---- helpers ----------------------------------------------------------
    def gfp(self, op, where):
        g = op.get("gfp", "GFP_KERNEL")
        words = [w.strip() for w in g.split("|")]
        for w in words:
            if w not in GFP_FLAGS:
                self.refuse(where, "gfp %s: the oracle passes only named flags (%s)"
                            % (w, ", ".join(sorted(GFP_FLAGS))))
        return "|".join(words)

    def cache(self, op, where, key="cache"):
        name = op[key]
        name = self.aliases.get(name, name)
        if name not in self.caches:
            self.refuse(where, "cache %s does not exist (a kmalloc cache or a destroyed one)" % name)
        return name

    def emit(self, line):
        self.lines.append(line)
        if len(self.lines) > MAX_LINES:
            raise Refused("%s: more than %d operations once the repeats are unrolled" % (self.path, MAX_LINES))

    def new_slot(self):
        self.next_slot += 1
        return self.next_slot - 1

    def object_slots(self, name, where):
        """Live slots a free of `name` frees: one object, or a bulk's named ones."""
        if name in self.names:
            return [self.names[name]]
        if name in self.bulks:
            first, count = self.bulks[name]
            slots = [s for s in range(first, first + count)
                     if self.names.get("%s[%d]" % (name, s - first)) == s]
            if slots:
                return slots
        self.refuse(where, "name %s names no live object" % name)

    def forget(self, slot):
        for n, s in list(self.names.items()):
            if s == slot:
                del self.names[n]
        c = self.live.pop(slot, None)
        if c is not None:
            self.freed[slot] = (c, self.allocs.get(c, 0))

    def counted(self, c, n=1):
        self.allocs[c] = self.allocs.get(c, 0) + n

    # ---- operations -------------------------------------------------------
    def create(self, op, where):
        name = op["name"]
        if not re.fullmatch(r"[A-Za-z0-9_.:+=,@%-]+", name):
            self.refuse(where, "cache name %r does not make a sysfs directory name" % name)
        if name in self.caches or name in self.aliases:
            self.refuse(where, "cache %s exists already" % name)
        # The kernel's sysfs order file is read-only: the oracle boots such
        # programs with slub_min_order=N slub_max_order=N, which gives every
        # cache that order, so all the program's caches must ask for it.
        self.orders.append(op.get("order"))
        flags = op.get("flags", [])
        for f in flags:
            if f not in SLAB_FLAGS:
                self.refuse(where, "flag %s: not one the oracle passes (%s)" % (f, ", ".join(sorted(SLAB_FLAGS))))
        fpo = op.get("freeptr_offset")
        if fpo is not None and self.kernel < (6, 12):
            self.refuse(where, "key \"freeptr_offset\": no kmem_cache_args before 6.12")
        cap = op.get("sheaf_capacity", 0)
        if cap and not self.sheaves:
            self.refuse(where, "key \"sheaf_capacity\": no sheaves before 6.18")
        if "SLAB_KMALLOC" in flags and self.kernel < (6, 2):
            self.refuse(where, "flag SLAB_KMALLOC: kmem_cache_create() takes it from 6.2 on "
                        "(SLAB_CORE_FLAGS), when the kmalloc red zone came")
        cp = op.get("cpu_partial")
        if cp and self.kernel >= (7, 0):
            self.refuse(where, "key \"cpu_partial\": 7.x has no CPU partial lists")
        slot = self.next_cache
        self.next_cache += 1
        if slot >= 64:
            self.refuse(where, "more than 64 caches")
        self.caches[name] = slot
        self.cache_info[name] = (op["object_size"], set(flags))
        self.cache_order.append(name)
        for a in op.get("aliases", []):
            self.aliases[a] = name
        self.emit("create %d %d slublab-%s %d %d %s %d %s %d" % (
            self.cpu(op, where), slot, name, op["object_size"], op.get("align", 0),
            "|".join(flags) or "0", 1 if op.get("ctor") else 0,
            -1 if fpo is None else fpo, cap))
        if cp is not None:
            self.emit("sys %d %s set cpu_partial %d" % (slot, name, cp))

    def alloc(self, op, where):
        if op.get("context", "task") != "task":
            self.refuse(where, "context %s: the driver allocates in task context only" % op["context"])
        c = self.cache(op, where)
        slot = self.new_slot()
        node = op.get("node", -1)
        size = ""
        if "size" in op:
            if node >= 0:
                self.refuse(where, "key \"size\" with \"node\": the driver's kmalloc of a requested "
                            "size from a cache takes no node")
            if not 0 < op["size"] <= self.cache_info[c][0]:
                self.refuse(where, "size %d: the driver asks for 1 to the object size (%d)"
                            % (op["size"], self.cache_info[c][0]))
            size = " %d" % op["size"]
        self.emit("alloc %d %d %d %d %s%s" % (self.cpu(op, where), self.caches[c], slot, node,
                                              self.gfp(op, where), size))
        self.live[slot] = c
        self.counted(c)
        if "name" in op:
            self.names[op["name"]] = slot

    def free(self, op, where):
        if "addr" in op:
            self.refuse(where, "key \"addr\": addresses are the engine's; the oracle frees by name")
        slots = self.object_slots(op["name"], where)
        for s in slots:
            if "cache" in op and self.cache(op, where) != self.live[s]:
                self.refuse(where, "free to another cache than the object's is a bug made on purpose")
        for s in slots:
            self.emit("free %d %d" % (self.cpu(op, where), s))
            self.forget(s)

    def named_slot(self, op, where):
        """The live slot a debugging operation names (never an address)."""
        if "addr" in op or "name" not in op:
            self.refuse(where, "key \"addr\": the oracle names the objects it reallocates and frees")
        if op["name"] not in self.names:
            self.refuse(where, "name %s names no live object" % op["name"])
        return self.names[op["name"]]

    def addr_slot(self, op, where):
        """The slot of the object at the engine's address op["addr"]: the
        latest allocation the engine put there, live, or freed with nothing
        allocated from its cache since (the kernel could have handed the
        object out again where the engine did not)."""
        if self.engine_addrs is None:
            self.refuse(where, "key \"addr\": addresses are the engine's, and no engine was given "
                        "to pair them with the driver's objects")
        addr = int(op["addr"], 0)
        slots = [k for k in range(self.next_slot) if k < len(self.engine_addrs)
                 and self.engine_addrs[k] == addr]
        if not slots:
            self.refuse(where, "address %s is no object the program allocated" % op["addr"])
        slot = slots[-1]
        if slot in self.live:
            return slot
        c, allocs = self.freed[slot]
        if c not in self.caches or self.allocs.get(c, 0) != allocs:
            self.refuse(where, "address %s: a freed object whose cache allocated or was destroyed "
                        "since; the kernel's object there may be another" % op["addr"])
        return slot

    def write(self, op, where):
        slot = self.addr_slot(op, where) if "addr" in op else self.named_slot(op, where)
        value = op.get("value", 0)
        if not isinstance(value, int) or not 0 <= value <= 255:
            self.refuse(where, "value %r: the driver writes one byte value" % (value,))
        self.emit("write %d %d %d %d %d" % (self.cpu(op, where), slot, op.get("offset", 0),
                                            op.get("count", 1), value))

    def krealloc(self, op, where):
        slot = self.named_slot(op, where)
        if op["size"] <= 0:
            self.refuse(where, "size 0: krealloc() frees the object and returns ZERO_SIZE_PTR, "
                        "which the oracle does not keep")
        self.emit("krealloc %d %d %d %s" % (self.cpu(op, where), slot, op["size"], self.gfp(op, where)))
        c = self.live[slot]
        # larger than the object: a kmalloc object now, no longer the cache's
        if c is not None and op["size"] > self.cache_info[c][0]:
            self.live[slot] = None

    def kfree(self, op, where):
        slot = self.named_slot(op, where)
        self.emit("kfree %d %d" % (self.cpu(op, where), slot))
        self.forget(slot)

    def validate(self, op, where):
        c = self.cache(op, where)
        if not self.cache_info[c][1] & DEBUG_FLAGS:
            self.refuse(where, "validate of %s: the kernel's validate file checks debug caches only "
                        "(kmem_cache_debug())" % c)
        self.emit("sys %d %s validate" % (self.caches[c], c))

    def alloc_bulk(self, op, where):
        c = self.cache(op, where)
        count = op["count"]
        first = self.next_slot
        self.next_slot += count
        self.emit("alloc_bulk %d %d %d %d %s" % (self.cpu(op, where), self.caches[c], first, count,
                                                self.gfp(op, where)))
        for k in range(count):
            self.live[first + k] = c
        self.counted(c, count)
        if "name" in op:
            n = op["name"]
            self.bulks[n] = (first, count)
            for k in range(count):
                self.names["%s[%d]" % (n, k)] = first + k

    def free_bulk(self, op, where):
        c = self.cache(op, where)
        slots = self.object_slots(op["name"], where)
        for s in slots:
            if self.live[s] != c:
                self.refuse(where, "free_bulk of an object of another cache is a bug made on purpose")
        first, last = slots[0], slots[-1]
        self.emit("free_bulk %d %d %d %d" % (self.cpu(op, where), self.caches[c], first, last - first + 1))
        for s in slots:
            self.forget(s)
        # slots between first and last that are live but not under this name
        for s in range(first, last + 1):
            if s in self.live and s not in slots:
                self.refuse(where, "free_bulk over a range holding objects of other names")

    def flush_all(self, op, where):
        c = self.cache(op, where)
        if self.kernel >= (7, 0):
            self.refuse(where, "`flush_all` has no caller a driver can reach in 7.x (no sysfs file runs it alone)")
        # 6.x: writing cpu_partial runs flush_all() (cpu_partial_store());
        # writing the value it already has changes nothing else
        self.emit("sys %d %s flush" % (self.caches[c], c))

    def shrink(self, op, where):
        c = self.cache(op, where)
        self.emit("shrink %d %d" % (self.cpu(op, where), self.caches[c]))

    def destroy(self, op, where):
        c = self.cache(op, where)
        if any(v == c for v in self.live.values()):
            self.refuse(where, "destroy of cache %s while it has live objects" % c)
        if any(v[1] == c for v in self.sheaf_names.values()):
            self.refuse(where, "destroy of cache %s while it has prefilled sheaves" % c)
        self.emit("destroy %d %d" % (self.cpu(op, where), self.caches[c]))
        del self.caches[c]
        self.cache_order.remove(c)
        for a in [a for a, n in self.aliases.items() if n == c]:
            del self.aliases[a]

    def kfree_rcu(self, op, where):
        if self.kernel < (7, 0):
            self.refuse(where, "`kfree_rcu` is recorded on 7.x kernels only")
        if "addr" in op:
            self.refuse(where, "key \"addr\": addresses are the engine's; the oracle frees by name")
        for s in self.object_slots(op["name"], where):
            self.emit("kfree_rcu %d %d" % (self.cpu(op, where), s))
            self.forget(s)

    def rcu_barrier(self, op, where):
        if self.kernel < (7, 0):
            self.refuse(where, "`rcu_barrier` is recorded on 7.x kernels only")
        self.emit("rcu_barrier %d" % self.cpu(op, where))

    def need_sheaves(self, op, where):
        if not self.sheaves:
            self.refuse(where, "`%s`: no sheaves before 6.18" % op["op"])

    def sheaf(self, op, where):
        n = op["sheaf"]
        if n not in self.sheaf_names:
            self.refuse(where, "sheaf %s was not prefilled or was returned" % n)
        return self.sheaf_names[n]

    def prefill(self, op, where):
        self.need_sheaves(op, where)
        c = self.cache(op, where)
        if op["name"] in self.sheaf_names:
            self.refuse(where, "sheaf %s is still out" % op["name"])
        slot = self.next_sheaf
        self.next_sheaf += 1
        if slot >= 1024:
            self.refuse(where, "more than 1024 sheaves")
        self.sheaf_names[op["name"]] = (slot, c)
        self.emit("prefill %d %d %d %d %s" % (self.cpu(op, where), self.caches[c], slot, op["count"],
                                              self.gfp(op, where)))

    def alloc_from_sheaf(self, op, where):
        self.need_sheaves(op, where)
        sl, c = self.sheaf(op, where)
        slot = self.new_slot()
        self.emit("sheaf_alloc %d %d %d %s" % (self.cpu(op, where), sl, slot, self.gfp(op, where)))
        self.live[slot] = c
        self.counted(c)
        if "name" in op:
            self.names[op["name"]] = slot

    def refill_sheaf(self, op, where):
        self.need_sheaves(op, where)
        sl, c = self.sheaf(op, where)
        self.emit("refill %d %d %d %s" % (self.cpu(op, where), sl, op["count"], self.gfp(op, where)))

    def return_sheaf(self, op, where):
        self.need_sheaves(op, where)
        sl, c = self.sheaf(op, where)
        self.emit("return %d %d" % (self.cpu(op, where), sl))
        del self.sheaf_names[op["sheaf"]]

    def mark(self, op, where):
        self.marks += 1
        self.emit("mark %s %s" % (op["name"], " ".join(self.cache_order)))

    def apply(self, op, where, i=None):
        kind = op["op"]
        if kind in NO_KERNEL_EQUIVALENT:
            self.refuse(where, "`%s` has no kernel equivalent: %s" % (kind, NO_KERNEL_EQUIVALENT[kind]))
        if kind == "repeat":
            for k in range(op["times"]):
                for j, sub in enumerate(op["ops"]):
                    self.apply(expand(sub, k), "%s.ops[%d] (iteration %d)" % (where, j, k), k)
            return
        fn = getattr(self, kind, None)
        if fn is None or kind.startswith("_"):
            self.refuse(where, "unknown operation `%s`" % kind)
        if "cpu" in op and op["cpu"] not in self.cpu_map:
            self.refuse(where, "cpu %d is not on the machine" % op["cpu"])
        fn(op, where)

    def engine_objects(self):
        """The objects the engine hands out running the program, in order."""
        if not self.engine:
            return None
        if any(op.get("op") in ("krealloc", "kmalloc") for op in self.sc.get("ops", [])):
            raise Refused("%s: a write by address with krealloc or kmalloc: the engine's objects "
                          "no longer pair with the driver's slots" % self.path)
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            f.write(dump_program(self.program_json()))
            f.flush()
            r = subprocess.run([self.engine, "run", f.name, "--events", "--kernel", self.kernel_text],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode not in (0, 1):  # 1: an expectation failed, which a program has none of
            raise Refused("%s: the engine cannot run it to pair addresses: %s"
                          % (self.path, r.stderr.strip().splitlines()[-1:] or "?"))
        addrs = []
        for line in r.stdout.splitlines():
            e = json.loads(line)
            for m in e.get("moves", []):
                if m.get("kind") == "object" and m["to"].get("type") == "user":
                    addrs.append(int(m["id"], 16))
        return addrs

    def run(self):
        self.machine()
        if uses_addr(self.sc.get("ops", [])):
            self.engine_addrs = self.engine_objects()
        for i, c in enumerate(self.sc.get("caches", [])):
            self.create(c, "caches[%d]" % i)
        for i, op in enumerate(self.sc.get("ops", [])):
            self.apply(op, "ops[%d]" % i)
        self.mark({"name": "end"}, "end")
        given = set(self.orders) - {None}
        if given and (len(given) > 1 or None in self.orders):
            raise Refused("%s: key \"order\": the kernel's order file is read-only, and the oracle's "
                          "boot option slub_min_order=slub_max_order gives every cache one order; "
                          "here caches ask for %s" % (self.path, sorted(self.orders, key=str)))
        self.order = given.pop() if given else None
        if self.engine_addrs is not None and len(self.engine_addrs) != self.next_slot:
            raise Refused("%s: the engine handed out %d objects, the driver's slots are %d: a write by "
                          "address cannot be paired" % (self.path, len(self.engine_addrs), self.next_slot))
        return ["begin %d" % self.next_slot] + self.lines

    def program_json(self):
        """The scenario as it runs on the oracle's machine."""
        sc = copy.deepcopy(self.sc)
        for k in ("expect", "model", "variants"):
            sc.pop(k, None)
        topo = TOPOLOGY[self.nodes]
        sc["machine"] = {"cpus": CPUS, "nodes": self.nodes, "cpu_node": topo,
                         "mem_mb_per_node": MEM_MB_PER_NODE[self.nodes]}

        def remap(ops):
            for op in ops:
                if "cpu" in op:
                    op["cpu"] = self.cpu_map[op["cpu"]]
                elif op.get("op") not in ("repeat", "mark") and self.cpu_map[0] != 0:
                    op["cpu"] = self.cpu_map[0]
                if op.get("op") == "repeat":
                    remap(op["ops"])
        remap(sc.get("caches", []))
        remap(sc.get("ops", []))
        return sc


def expand(op, i):
    """A repeat body's op with {i} replaced in its names."""
    out = {}
    for k, v in op.items():
        if isinstance(v, str) and k in ("name", "cache", "sheaf"):
            out[k] = v.replace("{i}", str(i))
        else:
            out[k] = v
    return out


def translate_one(kernel, path, engine=None):
    """Translates one scenario; returns (translator, lines, None) or (None, None, reason)."""
    try:
        with open(path) as f:
            sc = json.load(f)
    except (OSError, ValueError) as e:
        return None, None, "%s: %s" % (path, e)
    t = Translator(kernel, sc, path, engine)
    try:
        lines = t.run()
    except Refused as e:
        return None, None, str(e)
    except (KeyError, TypeError, AttributeError) as e:
        return None, None, "%s: not a valid scenario (%s)" % (path, e)
    return t, lines, None


def dump_program(sc):
    """JSON text of a program: one key a line, one cache or op a line."""
    parts = []
    for k, v in sc.items():
        if k in ("caches", "ops") and isinstance(v, list) and v:
            items = ",\n".join("    " + json.dumps(x) for x in v)
            parts.append("  %s: [\n%s\n  ]" % (json.dumps(k), items))
        else:
            parts.append("  %s: %s" % (json.dumps(k), json.dumps(v)))
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_program(d, name, lines):
    """Writes d/name.prog: the driver's lines between marks go into files
    d/name.<k>, which the .prog runs with one "exec" each."""
    control = []
    seg = []

    def flush():
        if seg:
            k = sum(1 for c in control if c.startswith("exec "))
            with open(os.path.join(d, "%s.%d" % (name, k)), "w") as f:
                f.write("\n".join(seg) + "\n")
            control.append("exec /progs/%s.%d" % (name, k))
            del seg[:]
    for line in lines:
        if line.startswith("mark ") or line.startswith("sys "):
            flush()
            control.append(line)
        else:
            seg.append(line)
    flush()
    with open(os.path.join(d, name + ".prog"), "w") as f:
        f.write("\n".join(control) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--dir", required=True, help="writes DIR/n<nodes>/<seq>.prog, <seq>.id, <id>.json")
    ap.add_argument("--engine", help="slublab, to pair a write's address with the driver's object")
    ap.add_argument("programs", nargs="+", help="ID=SCENARIO.json")
    a = ap.parse_args()
    seq = {}
    for entry in a.programs:
        pid, path = entry.split("=", 1)
        t, lines, why = translate_one(a.kernel, path, a.engine)
        if why:
            print("refused %s: %s" % (pid, why))
            continue
        group = "n%d" % t.nodes if t.order is None else "n%d-o%d" % (t.nodes, t.order)
        d = os.path.join(a.dir, group)
        os.makedirs(d, exist_ok=True)
        name = "%05d" % seq.get(group, 0)
        seq[group] = seq.get(group, 0) + 1
        write_program(d, name, lines)
        with open(os.path.join(d, pid + ".json"), "w") as f:
            f.write(dump_program(t.program_json()))
        with open(os.path.join(d, name + ".id"), "w") as f:
            f.write(pid + "\n")
    for group, n in sorted(seq.items()):
        print("group %s %d" % (group, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
