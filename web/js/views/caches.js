// @ts-check
// The session's caches, slabtop style: sortable by any column; choosing a
// row selects the cache the picture draws.  Each live cache has a
// "validate" button: validate_slab_cache(), what writing 1 to
// /sys/kernel/slab/<cache>/validate runs; "errors" counts SLUB's reports.

import { h, fill } from '../dom.js';

const COLS = [
  ['name', 'cache', (c) => c.name],
  ['objects', 'objects', (c) => c.objects],
  ['total_objects', 'total', (c) => c.total_objects],
  ['use', 'use', (c) => (c.total_objects ? Math.round((100 * c.objects) / c.total_objects) : 0)],
  ['slabs', 'slabs', (c) => c.slabs],
  ['partial', 'partial', (c) => c.partial],
  ['object_size', 'obj size', (c) => c.object_size],
  ['slab_size', 'stride', (c) => c.slab_size],
  ['objs_per_slab', 'obj/slab', (c) => c.objs_per_slab],
  ['sheaf_capacity', 'sheaf', (c) => c.sheaf_capacity],
  ['slab_errors', 'errors', (c) => c.slab_errors ?? 0],
];

export function createCaches(root, player) {
  const doc = root.ownerDocument;
  let sort = { col: 'objects', desc: true };
  const head = h(doc, 'tr');
  const body = h(doc, 'tbody');
  fill(root, h(doc, 'table', { class: 'caches', id: 'cache-table' },
    h(doc, 'caption', null, 'Caches (choose one to draw it)'), h(doc, 'thead', null, head), body));
  let key = '';
  const validateButton = (c) => h(doc, 'button', { type: 'button', class: 'validate', dataset: { validate: c.name },
    title: `validate_slab_cache(${c.name}): what writing 1 to /sys/kernel/slab/${c.name}/validate runs; SLUB's reports go to the step's Explain`,
    onclick: async () => {
      try {
        await player.apply([{ op: 'validate', cache: c.name }]);
      } catch (err) { player.showError(err); }
    } }, 'validate');
  return {
    render(m) {
      const caches = m.cur?.state?.caches ?? [];
      const k = `${m.session?.id}/${m.cacheId}/${sort.col}/${sort.desc}/` + caches.map((c) => COLS.map((x) => x[2](c)).join(',') + c.alive).join('|');
      if (k === key) return;
      key = k;
      fill(head, ...COLS.map(([id, label]) => h(doc, 'th', { scope: 'col', dataset: { spot: `column:${id}` }, 'aria-sort': sort.col === id ? (sort.desc ? 'descending' : 'ascending') : 'none' },
        h(doc, 'button', { type: 'button', class: 'sort', onclick: () => { sort = { col: id, desc: sort.col === id ? !sort.desc : id !== 'name' }; key = ''; player.emit(); } },
          label, sort.col === id ? (sort.desc ? ' ▼' : ' ▲') : ''))), h(doc, 'th', { scope: 'col' }, 'check'));
      const get = COLS.find((c) => c[0] === sort.col)?.[2] ?? ((c) => c.id);
      const list = [...caches].sort((a, b) => {
        const x = get(a), y = get(b);
        const r = typeof x === 'string' ? x.localeCompare(y) : x - y;
        return (sort.desc ? -r : r) || a.id - b.id;
      });
      fill(body, ...list.map((c) => h(doc, 'tr', { class: c.id === m.cacheId ? 'current' : null, 'aria-selected': String(c.id === m.cacheId), dataset: { cache: c.id } },
        ...COLS.map(([id], i) => i === 0
          ? h(doc, 'th', { scope: 'row' }, h(doc, 'button', { type: 'button', class: 'pick', 'aria-pressed': String(c.id === m.cacheId), onclick: () => player.setCache(c.id) },
            c.id === m.cacheId ? '▶ ' : '', c.name, c.alive ? '' : ' (destroyed)'))
          : h(doc, 'td', { class: 'num' }, id === 'use' ? `${COLS[i][2](c)}%` : String(COLS[i][2](c)))),
        h(doc, 'td', null, c.alive ? validateButton(c) : ''))));
      if (!list.length) body.append(h(doc, 'tr', null, h(doc, 'td', { colspan: COLS.length + 1 }, 'No cache yet: step forward.')));
    },
  };
}
