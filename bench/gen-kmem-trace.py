#!/usr/bin/env python3
"""bench/gen-kmem-trace.py: a synthetic kmem ftrace of a busy machine, for
bench/big-trace.sh.

  bench/gen-kmem-trace.py EVENTS [--live N] [--cpus 8] [--seed 1] > trace.txt

The text is what /sys/kernel/tracing/trace prints for kmem:kmem_cache_alloc,
kmem:kmem_cache_free, kmem:kmalloc and kmem:kfree (the committed sample's
format).  The caches and their sizes are the named caches of the captured
/proc/slabinfo (tests/data/proc-slabinfo.txt), weighted by how many objects
that machine had live; kmalloc takes the sample's size spread.  The number of
live objects climbs to --live (default 300,000) and then stays there: each
event after that frees a random live object (on another CPU one time in
eight) or allocates one, so a longer trace is more of the same, not more
live state.  One kfree in nine is kfree(NULL), as in the sample; a free in
twenty-five comes from rcu_do_batch in softirq.  Same arguments, same bytes.
"""
import argparse
import random
import sys

SLABINFO = 'tests/data/proc-slabinfo.txt'
KMALLOC = [8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192]
KMALLOC_W = [4, 10, 14, 20, 8, 10, 6, 6, 8, 6, 4, 3, 1]


def caches():
    out = []
    with open(SLABINFO) as f:
        for line in f:
            if line.startswith(('slabinfo', '#')):
                continue
            p = line.split()
            name, active, size = p[0], int(p[1]), int(p[3])
            if name.startswith(('kmalloc-', 'dma-kmalloc', 'kmem_cache')) or active == 0 or size > 8192:
                continue
            out.append((name, size, active))
    out.sort(key=lambda c: -c[2])
    return out[:64]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('events', type=int)
    ap.add_argument('--live', type=int, default=300000)
    ap.add_argument('--cpus', type=int, default=8)
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    cs = caches()
    weights = [c[2] for c in cs]
    w = sys.stdout.write
    w('# tracer: nop\n#\n# entries-in-buffer/entries-written: %d/%d   #P:%d\n#\n' % (a.events, a.events, a.cpus))
    w('#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n#              | |         |   |||||     |         |\n')
    live = []          # [ptr, cache index or -1 for kmalloc, cpu]
    next_ptr = 0x10000
    t = 100.0
    for i in range(a.events):
        t += 0.000002
        cpu = rnd.randrange(a.cpus)
        grow = len(live) < a.live
        r = rnd.random()
        if r < 0.04:  # kfree(NULL)
            w('           kworker-%d    [%03d] .....  %.6f: kfree: call_site=ida_alloc_range+0x39b/0x400 ptr=0000000000000000\n' % (100 + cpu, cpu, t))
            continue
        if live and (not grow and r < 0.52 or grow and r < 0.30):
            j = rnd.randrange(len(live))
            ptr, ci, owner = live[j]
            live[j] = live[-1]
            live.pop()
            if rnd.random() >= 0.125:
                cpu = owner
            soft = rnd.random() < 0.04
            flags = '..s..' if soft else '.....'
            site = 'rcu_do_batch+0x1b7/0x530' if soft else 'do_exit+0x2d1/0xb00'
            if ci < 0:
                w('              task-%d    [%03d] %s  %.6f: kfree: call_site=%s ptr=%016x\n' % (1000 + cpu, cpu, flags, t, site, ptr))
            else:
                w('              task-%d    [%03d] %s  %.6f: kmem_cache_free: call_site=%s ptr=%016x name=%s\n' % (1000 + cpu, cpu, flags, t, site, ptr, cs[ci][0]))
            continue
        ptr = next_ptr
        next_ptr += 0x40
        if rnd.random() < 0.2:
            size = rnd.choices(KMALLOC, KMALLOC_W)[0]
            req = max(1, size - rnd.randrange(size // 2 + 1))
            w('              task-%d    [%03d] .....  %.6f: kmalloc: call_site=alloc_fdtable+0x55/0x140 ptr=%016x bytes_req=%d bytes_alloc=%d gfp_flags=GFP_KERNEL node=-1 accounted=false\n' % (1000 + cpu, cpu, t, ptr, req, size))
            live.append([ptr, -1, cpu])
        else:
            ci = rnd.choices(range(len(cs)), weights)[0]
            name, size, _ = cs[ci]
            w('              task-%d    [%03d] .....  %.6f: kmem_cache_alloc: call_site=copy_process+0x1a5/0x1d80 ptr=%016x name=%s bytes_req=%d bytes_alloc=%d gfp_flags=GFP_KERNEL node=-1 accounted=false\n' % (1000 + cpu, cpu, t, ptr, name, size, size))
            live.append([ptr, ci, cpu])


if __name__ == '__main__':
    main()
