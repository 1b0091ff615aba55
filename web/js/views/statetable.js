// @ts-check
// "Show as table": the current state of the selected cache as plain
// tables (CPUs, barns, slabs, sheaves, pages), for screen readers and for
// anyone who prefers numbers to pictures.

import { h, fill } from '../dom.js';
import { placeName, STATES } from '../format.js';
import { cacheView } from '../model.js';

export function createStateTable(root) {
  const doc = root.ownerDocument;
  let key = '';
  const table = (id, caption, cols, rows) => h(doc, 'table', { class: 'state', id },
    h(doc, 'caption', null, caption),
    h(doc, 'thead', null, h(doc, 'tr', null, cols.map((c) => h(doc, 'th', { scope: 'col' }, c)))),
    h(doc, 'tbody', null, rows.length ? rows.map((r) => h(doc, 'tr', null, r.map((x, i) => (i === 0 ? h(doc, 'th', { scope: 'row' }, String(x)) : h(doc, 'td', null, String(x))))))
      : h(doc, 'tr', null, h(doc, 'td', { colspan: cols.length }, 'none'))));
  const sh = (x) => (x ? `#${x.id} ${x.size}/${x.capacity}` : 'none');
  return {
    render(m) {
      const k = `${m.session?.id}@${m.at}/${m.cacheId}`;
      if (k === key || !m.cur) return;
      key = k;
      const st = m.cur.state;
      const v = cacheView(st, m.cacheId);
      const c = v.cache;
      fill(root,
        h(doc, 'p', null, c ? `Cache ${c.name}: ${c.slabs} slabs, ${c.objects} of ${c.total_objects} objects in use (sheaves count as in use), ${c.partial} partial.` : 'No cache at this step.',
          ' Objects: ', STATES.map((s, i) => (v.counts[i] ? `${v.counts[i]} ${s.name}` : null)).filter(Boolean).join(', ') || 'none', '.'),
        table('t-cpus', 'Per-CPU sheaves (id size/capacity)', ['CPU', 'main', 'spare', 'rcu_free'],
          (c?.cpus ?? []).map((x) => [x.cpu, sh(x.main), sh(x.spare), sh(x.rcu_free)])),
        // legacy and hybrid models: each CPU's cpu slab, lockless freelist and partial list
        ...(c?.cpus?.[0]?.cpu_slab ? [table('t-cpuslabs', `Per-CPU slabs (cpu_partial ${c.cpu_partial} objects, cpu_partial_slabs ${c.cpu_partial_slabs})`,
          ['CPU', 'cpu slab', 'lockless freelist', 'tid', 'CPU partial list'],
          c.cpus.map((x) => [x.cpu, x.cpu_slab.slab ?? 'none', x.cpu_slab.freelist.length, x.cpu_slab.tid, x.cpu_slab.partial.join(' ') || 'empty']))] : []),
        table('t-barns', 'Barns and partial lists per node', ['node', 'barn full', 'barn empty', 'barn partial', 'partial slabs', 'slabs'],
          (c?.nodes ?? []).map((n) => [n.node, n.barn.nr_full, n.barn.nr_empty, n.barn.partial ?? 'none', n.nr_partial, n.nr_slabs])),
        table('t-slabs', 'Slabs', ['slab', 'node', 'list', 'in use', 'objects', 'free'],
          v.slabs.map((s) => [s.addr, s.node, placeName(s.place), s.inuse, s.objects, s.freelist.length])),
        table('t-sheaves', 'Sheaves', ['sheaf', 'where', 'size', 'capacity'],
          v.sheaves.map((s) => [`#${s.id}`, placeName(s.place), s.size, s.capacity])),
        table('t-pages', 'Page allocator: free blocks per order', ['node', 'free pages', ...Array.from({ length: 11 }, (_, i) => `o${i}`)],
          st.zones.map((z) => [z.node, z.free_pages, ...z.nr_free])));
    },
  };
}
