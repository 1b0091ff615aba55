// tests/cli/export_expect.mjs: what an export must hold, computed from the
// engine's JSON outputs only (never from the export code), for export.sh
// and export_tools.sh.
//
//   node export_expect.mjs state SNAPSHOT.json SUMMARY.json OUTDIR
//       SNAPSHOT is `slublab run --snapshot`, SUMMARY `slublab run --json`.
//       Writes OUTDIR/slabinfo.tsv (one line per live cache: name
//       active_objs num_objs objsize objperslab pagesperslab slabs) and
//       OUTDIR/<cache>/<file> for the geometry, slab-state and counter files.
//   node export_expect.mjs stats EVENTS.jsonl AT CACHE_ID OUTDIR
//       Counter files of cache CACHE_ID after the first AT events of
//       `slublab run --events`, summed from the events' stat deltas.
import fs from 'node:fs';
import path from 'node:path';

const [mode, ...args] = process.argv.slice(2);

function perNode(values) {
    const total = values.reduce((a, b) => a + b, 0);
    return [total, ...values.flatMap((v, n) => (v ? [`N${n}=${v}`] : []))].join(' ') + '\n';
}

function perCpu(values) {
    const total = values.reduce((a, b) => a + b, 0);
    return [total, ...values.flatMap((v, c) => (v ? [`C${c}=${v}`] : []))].join(' ') + '\n';
}

function writeStats(dir, nrCpus, names, cpuStats) {
    for (const name of names) {
        if (name.startsWith('engine_')) continue;
        const v = Array.from({length: nrCpus}, (_, c) => (cpuStats[c] && cpuStats[c][name]) || 0);
        fs.writeFileSync(path.join(dir, name), perCpu(v));
    }
}

if (mode === 'state') {
    const [snapFile, summaryFile, out] = args;
    const snap = JSON.parse(fs.readFileSync(snapFile, 'utf8'));
    const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    const lines = [];
    for (const c of snap.caches) {
        if (!c.alive) continue;
        const slabs = snap.slabs.filter((s) => s.cache === c.id);
        const node = (f) => Array.from({length: snap.nr_nodes}, (_, n) =>
            slabs.filter((s) => s.node === n).reduce((a, s) => a + f(s), 0));
        const partial = (s) => s.place.type === 'node_partial';
        const num = slabs.reduce((a, s) => a + s.objects, 0);
        const free = slabs.filter(partial).reduce((a, s) => a + s.objects - s.inuse, 0);
        lines.push([c.name, num - free, num, c.slab_size, c.objs_per_slab, 1 << c.order,
            slabs.length].join(' '));
        const dir = path.join(out, c.name);
        fs.mkdirSync(dir, {recursive: true});
        const files = {
            slabs: node(() => 1),
            partial: node((s) => (partial(s) ? 1 : 0)),
            objects: node((s) => (partial(s) ? s.inuse : s.objects)),
            objects_partial: node((s) => (partial(s) ? s.inuse : 0)),
            total_objects: node((s) => s.objects),
        };
        // per-CPU slabs (legacy model; a sheaves or debug cache has none):
        // cpu_slabs counts a CPU's cpu slab on its node and, only if it has
        // one, its partial list on the node of the list's head
        const nodeOf = (addr) => slabs.find((s) => s.addr === addr).node;
        const cpuSlabs = Array(snap.nr_nodes).fill(0);
        const partials = [];
        for (const x of c.cpus) {
            const cs = x.cpu_slab;
            const n = cs ? cs.partial.length : 0;
            if (n) partials.push(` C${x.cpu}=${Math.floor((n * c.objs_per_slab) / 2)}(${n})`);
            if (!cs || !cs.slab) continue;
            cpuSlabs[nodeOf(cs.slab)]++;
            if (n) cpuSlabs[nodeOf(cs.partial[0])] += n;
        }
        const nrPartial = c.cpus.reduce((a, x) => a + (x.cpu_slab ? x.cpu_slab.partial.length : 0), 0);
        files.cpu_slabs = cpuSlabs;
        for (const [f, v] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), perNode(v));
        fs.writeFileSync(path.join(dir, 'cpu_partial'), `${c.cpu_partial ?? 0}\n`);
        fs.writeFileSync(path.join(dir, 'slabs_cpu_partial'),
            `${Math.floor((nrPartial * c.objs_per_slab) / 2)}(${nrPartial})${partials.join('')}\n`);
        // sheaf_capacity came with the sheaves (6.18)
        for (const f of ['object_size', 'slab_size', 'align', 'objs_per_slab', 'order',
            'min_partial', ...(summary.model === 'sheaves' ? ['sheaf_capacity'] : [])])
            fs.writeFileSync(path.join(dir, f), `${c[f]}\n`);
        const sc = summary.caches.find((x) => x.id === c.id);
        const cpuStats = sc.cpus.map((x) => x.stats);
        writeStats(dir, snap.nr_cpus, Object.keys(sc.stats), cpuStats);
    }
    fs.writeFileSync(path.join(out, 'slabinfo.tsv'), lines.join('\n') + '\n');
} else if (mode === 'stats') {
    const [eventsFile, at, cacheId, out] = args;
    const perCpuStats = [];
    let nrCpus = 0;
    for (const line of fs.readFileSync(eventsFile, 'utf8').split('\n')) {
        if (!line || line.startsWith('{"summary"')) continue;
        const ev = JSON.parse(line);
        nrCpus = Math.max(nrCpus, ev.cpu + 1);
        if (ev.seq >= Number(at) || ev.cache !== Number(cacheId) || !ev.stats) continue;
        perCpuStats[ev.cpu] ??= {};
        for (const [k, v] of Object.entries(ev.stats))
            perCpuStats[ev.cpu][k] = (perCpuStats[ev.cpu][k] || 0) + v;
    }
    const names = new Set(perCpuStats.flatMap((s) => Object.keys(s || {})));
    fs.mkdirSync(out, {recursive: true});
    writeStats(out, nrCpus, names, perCpuStats);
} else {
    console.error('usage: export_expect.mjs state|stats ...');
    process.exit(2);
}
