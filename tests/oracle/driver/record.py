#!/usr/bin/env python3
"""Turn what a kernel oracle boot printed on its data port into fixtures
(format: docs/kernel-oracle.md), and keep summary.txt up to date.

Used by scripts/kernel-oracle, whose OUT is a staging directory: the
release's programs.tar.gz unpacked, packed again once the recording ends.

  record.py boot --data DATA --progs DIR --out OUT --nodes N
      reads DATA (the guest's /dev/ttyS1), checks the guest's NUMA topology
      is the one asked for, turns the kernel log's SLUB reports at each mark
      ("kmsg" lines) into each cache's count so far ("slab_errors N", as
      lib/slub_kunit.c counts them) and "# report" lines, writes
      OUT/programs/<id>.out and copies
      DIR/<id>.json to OUT/programs/<id>.json for every program that ran
      to its end on every run; prints "refused <id>: <why>" for the others
      and "recorded <n>" at the end.
  record.py summary --out OUT --refused FILE --seconds "..."
      rewrites OUT/summary.txt from every OUT/programs/*.out, keeping the
      "recording" lines of earlier runs and adding one for this run.
"""
import argparse
import glob
import os
import re
import shutil
import sys

TOPOLOGY = {1: [0, 0, 0, 0], 2: [0, 0, 1, 1]}


def cpulist(s):
    cpus = []
    for part in s.split(","):
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            cpus += range(int(a), int(b) + 1)
        else:
            cpus.append(int(part))
    return cpus


PREFIX = "slublab-"
TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s*")
OVERWRITTEN = re.compile(r"^\[(.*) overwritten\] ")
BUG = re.compile(r"^BUG slublab-(\S+) \(.*?\): (.*)$")
FIX = re.compile(r"^FIX slublab-(\S+): (.*)$")
COUNTED = re.compile(r"^SLUB:? slublab-(\S+?):? (.*)$")


# an address, hashed (0x...) or not yet ("0x(____ptrval____)" early in a
# 6.1 boot), with "-END" and "=VALUE"
HEX = r"0x(?:[0-9a-fA-F]+|\(_*ptrval_*\))"
ADDR = HEX + r"(?:-" + HEX + r")?(?:=" + HEX + r")?"


def kind_text(text):
    """A report's words without the addresses and numbers that change: an
    address at the end left out, one inside written <addr>."""
    text = re.split(r" @offset|\. First byte", text, 1)[0]
    text = re.sub(r"\s*" + ADDR + r"\W*$", "", text)
    return re.sub(ADDR, "<addr>", text).rstrip(". ")


def kmsg_reports(texts):
    """(cache, kind) of each report in the kernel log lines `texts`, counted
    as lib/slub_kunit.c counts slab_errors: one per slab_bug() header
    (object_err, slab_err), per slab_fix() ("FIX"), per check of bytes that
    failed (6.12 on: its "[<what> overwritten]" line, whose "BUG ... Object
    corrupt" header is the same report) and per count validate found wrong."""
    out = []
    pending = []   # "[<what> overwritten]" lines not yet given a cache
    last = None

    def settle(cache):
        for what in pending:
            out.append((cache, what + " overwritten"))
        del pending[:]
    for t in texts:
        t = TIMESTAMP.sub("", t)
        m = OVERWRITTEN.match(t)
        if m:
            pending.append(m.group(1))
            continue
        m = BUG.match(t) or FIX.match(t) or COUNTED.match(t)
        if not m:
            continue
        cache, what = m.group(1), m.group(2)
        last = cache
        if m.re is BUG and what == "Object corrupt" and pending:
            settle(cache)
            continue
        settle(cache)
        out.append((cache, ("FIX " if m.re is FIX else "") + kind_text(what)))
    if pending and last:
        settle(last)
    return out


def with_reports(body):
    """The program's lines with its "kmsg" lines made into "slab_errors"
    (every cache at every mark, the count since the run began) and
    "# report <cache>: <kind>" lines."""
    out = []
    counts = {}
    kmsg = []
    for line in body:
        if line.startswith("kmsg "):
            kmsg.append(line[len("kmsg "):])
            continue
        if kmsg:
            for cache, kind in kmsg_reports(kmsg):
                counts[cache] = counts.get(cache, 0) + 1
                out.append("# report %s: %s" % (cache, kind))
            kmsg = []
        if line.startswith("run "):
            counts = {}
        out.append(line)
        if line.startswith("cache "):
            out.append("slab_errors %d" % counts.get(line[len("cache "):], 0))
    return out


def boot(a):
    with open(a.data, "rb") as f:
        text = f.read().decode("utf-8", "replace").replace("\r", "")
    lines = text.split("\n")
    kernel = None
    cpu_node = {}
    programs = []   # (id, [lines])
    cur = None
    ended = False
    for line in lines:
        if line.startswith("kernel ") and kernel is None:
            kernel = line[len("kernel "):]
        elif line.startswith("node ") and cur is None:
            _, node, cl = (line.split(" ", 2) + [""])[:3]
            for c in cpulist(cl):
                cpu_node[c] = int(node)
        elif line.startswith("program "):
            cur = (line[len("program "):], [])
            programs.append(cur)
        elif line.startswith("done ") and cur is not None:
            cur[1].append(line)
            cur = None
        elif line == "oracle-end":
            ended = True
        elif cur is not None:
            cur[1].append(line)
    if kernel is None:
        print("refused all: the guest printed nothing (see the console log)")
        return 1
    want = TOPOLOGY[a.nodes]
    have = [cpu_node.get(c, -1) for c in range(len(want))]
    if have != want or len(cpu_node) != len(want):
        print("refused all: guest topology %s, wanted cpu_node=%s"
              % (sorted(cpu_node.items()), ",".join(map(str, want))))
        return 1
    topology = "topology cpus=%d nodes=%d cpu_node=%s" % (len(want), a.nodes, ",".join(map(str, want)))
    os.makedirs(os.path.join(a.out, "programs"), exist_ok=True)
    recorded = 0
    seen = set()
    for pid, body in programs:
        seen.add(pid)
        if not body or body[-1] != "done " + pid:
            print("refused %s: the guest stopped in it (see the console log)" % pid)
            continue
        errors = [l for l in body if l.startswith("error ")]
        if errors:
            print("refused %s: the kernel refused an operation: %s" % (pid, errors[0][len("error "):]))
            continue
        runs = sum(1 for l in body if l.startswith("run "))
        if runs < a.runs:
            print("refused %s: %d runs of %d" % (pid, runs, a.runs))
            continue
        with open(os.path.join(a.out, "programs", pid + ".out"), "w") as f:
            f.write("# slublab-oracle 1\n")
            f.write("kernel %s\n" % kernel)
            f.write(topology + "\n")
            for l in with_reports(body[:-1]):
                f.write(l + "\n")
        shutil.copyfile(os.path.join(a.progs, pid + ".json"),
                        os.path.join(a.out, "programs", pid + ".json"))
        recorded += 1
    for p in sorted(glob.glob(os.path.join(a.booted or a.progs, "*.id"))):
        with open(p) as f:
            pid = f.read().strip()
        if pid not in seen:
            print("refused %s: never started (the guest %s)" % (pid, "ended early" if ended else "stopped"))
    print("recorded %d" % recorded)
    print("uname %s" % kernel)
    return 0


def summary(a):
    outs = sorted(glob.glob(os.path.join(a.out, "programs", "*.out")))
    programs = len(outs)
    marks = files = runs = 0
    shipped = random = handmade = minimal = 0
    # the minimal programs of tests/oracle/known-differences.txt
    minimal_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "minimal")
    kernels = set()
    topologies = {}
    for p in outs:
        pid = os.path.basename(p)[:-4]
        if pid.startswith("r") and pid[1:].isdigit():
            random += 1
        elif pid.startswith("h-"):
            handmade += 1
        elif os.path.exists(os.path.join(minimal_dir, pid + ".json")):
            minimal += 1
        else:
            shipped += 1
        nruns = 0
        with open(p) as f:
            for line in f:
                if line.startswith("kernel "):
                    kernels.add(line.split(" ", 1)[1].strip())
                elif line.startswith("topology "):
                    t = line.strip()[len("topology "):]
                    topologies[t] = topologies.get(t, 0) + 1
                elif line.startswith("run "):
                    nruns += 1
                elif line.startswith("mark "):
                    marks += 1
                elif line.startswith("cache ") or line.startswith("#"):
                    pass
                else:
                    files += 1
        runs += nruns
    history = []
    path = os.path.join(a.out, "summary.txt")
    if os.path.exists(path):
        with open(path) as f:
            history = [l.rstrip("\n") for l in f if l.startswith("recording ")]
    if a.seconds:
        history.append("recording " + a.seconds)
    refused = []
    if a.refused and os.path.exists(a.refused):
        with open(a.refused) as f:
            refused = sorted(set(l.rstrip("\n") for l in f if l.strip()))
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("# written by scripts/kernel-oracle; counts cover every programs/*.out\n")
        f.write("kernel %s\n" % " ".join(sorted(kernels)))
        f.write("programs %d (shipped scenarios %d, random %d, hand-made tests/oracle/handmade %d%s)\n"
                % (programs, shipped, random, handmade,
                   ", minimal tests/oracle/minimal %d" % minimal if minimal else ""))
        for t, n in sorted(topologies.items()):
            f.write("topology %s: %d programs\n" % (t, n))
        f.write("runs %d\n" % runs)
        f.write("marks %d (over all runs)\n" % marks)
        f.write("files %d (sysfs file lines over all marks)\n" % files)
        for h in history:
            f.write(h + "\n")
        f.write("refused %d\n" % len(refused))
        for r in refused:
            f.write("  %s\n" % r)
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("boot")
    b.add_argument("--data", required=True)
    b.add_argument("--progs", required=True)
    b.add_argument("--out", required=True)
    b.add_argument("--nodes", type=int, required=True)
    b.add_argument("--runs", type=int, default=2)
    b.add_argument("--booted", help="the boot's own programs (default: --progs)")
    s = sub.add_parser("summary")
    s.add_argument("--out", required=True)
    s.add_argument("--refused")
    s.add_argument("--seconds")
    a = ap.parse_args()
    return boot(a) if a.cmd == "boot" else summary(a)


if __name__ == "__main__":
    sys.exit(main())
