// @ts-check
// The session's caches, slabtop style, beside what each did over the run or
// up to this step (GET /api/sessions/ID/caches: allocations and frees, the
// slow paths, barn failures, slabs made and freed): sortable by any column,
// so a real trace reads busiest cache first; choosing a row draws that
// cache (one the run has not created yet at this step: at the run's end).
// The picture follows the cache of the current event unless a row was
// chosen (the box turns following back on).  Each live cache has a
// "validate" button: validate_slab_cache(), what writing 1 to
// /sys/kernel/slab/<cache>/validate runs; "errors" counts SLUB's reports.

import { api as defaultApi } from '../api.js';
import { h, fill, setText } from '../dom.js';

/** Columns of the state at this step. */
const STATE_COLS = [
  ['name', 'cache', (c) => c.name, 'the cache'],
  ['objects', 'objects', (c) => c.objects, 'objects in use now (sysfs objects)'],
  ['total_objects', 'total', (c) => c.total_objects, 'objects its slabs hold now'],
  ['use', 'use', (c) => (c.total_objects ? Math.round((100 * c.objects) / c.total_objects) : 0), 'objects / total'],
  ['slabs', 'slabs', (c) => c.slabs, 'slabs now'],
  ['partial', 'partial', (c) => c.partial, 'partial slabs now'],
  ['object_size', 'obj size', (c) => c.object_size, 'object size'],
  ['slab_size', 'stride', (c) => c.slab_size, 'bytes an object takes in its slab'],
  ['objs_per_slab', 'obj/slab', (c) => c.objs_per_slab, 'objects per slab'],
  ['sheaf_capacity', 'sheaf', (c) => c.sheaf_capacity, 'objects a sheaf holds'],
  ['slab_errors', 'errors', (c) => c.slab_errors ?? 0, "SLUB's reports on this cache (slab_errors)"],
];
/** The columns shown unless "all columns" is ticked. */
const MAIN_COLS = new Set(['name', 'allocs', 'frees', 'slabs']);
/** Columns of what each cache did over the range (the API's names). */
const ACTIVITY_COLS = [
  ['allocs', 'allocs', 'objects handed to callers'],
  ['frees', 'frees', 'objects given back (kfree_rcu included)'],
  ['alloc_slowpath', 'alloc slow', 'alloc_slowpath: allocations that went to the slabs'],
  ['barn_get_fail', 'barn get fail', 'barn_get_fail: an empty main sheaf found no full sheaf in the barn'],
  ['barn_put_fail', 'barn put fail', 'barn_put_fail: a full main sheaf found the barn at its maximum'],
  ['alloc_slab', 'slabs +', 'alloc_slab: slabs taken from the page allocator'],
  ['free_slab', 'slabs −', 'free_slab: slabs given back'],
];

/**
 * @param {HTMLElement} root
 * @param {any} player
 * @param {{ api?: any }} [o]
 */
export function createCaches(root, player, o = {}) {
  const doc = root.ownerDocument;
  const api = o.api ?? defaultApi;
  let sort = { col: 'allocs', desc: true };
  const head = h(doc, 'tr');
  const body = h(doc, 'tbody');
  const range = h(doc, 'select', { id: 'cache-range', 'aria-label': 'Activity over' },
    h(doc, 'option', { value: 'run' }, 'the whole run'), h(doc, 'option', { value: 'step' }, 'the run up to this step'));
  const follow = h(doc, 'input', { type: 'checkbox', id: 'cache-follow', checked: true });
  // the left panel is narrow: the cache, its allocations, frees and slabs, and the other columns on demand
  const all = h(doc, 'input', { type: 'checkbox', id: 'cache-all' });
  const note = h(doc, 'p', { class: 'note', id: 'cache-note', role: 'status' });
  range.addEventListener('change', () => { activity = null; key = ''; player.emit(); });
  follow.addEventListener('change', () => { player.followEventCache(follow.checked); });
  const table = () => /** @type {HTMLElement} */ (root.querySelector('#cache-table'));
  all.addEventListener('change', () => { table().classList.toggle('all', all.checked); });
  fill(root, h(doc, 'div', { class: 'row cache-tools' },
    h(doc, 'label', { for: 'cache-range' }, 'Activity over '), range,
    h(doc, 'label', null, follow, ' the picture follows the cache of the current event'),
    h(doc, 'label', null, all, ' all columns')),
  h(doc, 'table', { class: 'caches', id: 'cache-table' },
    h(doc, 'caption', null, 'Caches, ranked by what they did (choose one to draw it)'), h(doc, 'thead', null, head), body), note);
  let key = '';
  const validateButton = (c) => h(doc, 'button', { type: 'button', class: 'validate', dataset: { validate: c.name },
    title: `validate_slab_cache(${c.name}): what writing 1 to /sys/kernel/slab/${c.name}/validate runs; SLUB's reports go to the step's Explain`,
    onclick: async () => {
      try {
        await player.apply([{ op: 'validate', cache: c.name }]);
      } catch (err) { player.showError(err); }
    } }, 'validate');
  /** @type {{ for: string, rows: Map<number, any> } | null} the ranking shown, and what it was asked for */
  let activity = null;
  let asking = '';

  /** Ask for the ranking of @want ("SID:from:to") once; a failure says why in the note. */
  function ask(sid, want, from, to) {
    if (asking === want) return;
    asking = want;
    api.caches(sid, { from, to }).then((r) => {
      if (asking !== want) return;
      activity = { for: want, rows: new Map(r.caches.map((c) => [c.cache, c])) };
      note.textContent = '';
      key = '';
      player.emit();
    }, (err) => {
      if (asking !== want) return;
      activity = { for: want, rows: new Map() };
      note.textContent = `What each cache did is not shown: ${err.message}`;
      key = '';
      player.emit();
    });
  }

  return {
    /** Show every column (a lesson points at one of the others). */
    showAll() {
      if (all.checked) return;
      all.checked = true;
      table().classList.add('all');
    },
    render(m) {
      const caches = m.cur?.state?.caches ?? [];
      const sid = m.session?.id;
      follow.checked = m.followCache !== false;
      const to = range.value === 'step' ? m.at : m.end;
      const want = `${sid}:0:${to}`;
      if (sid && activity?.for !== want) ask(sid, want, 0, to);
      // a row per cache of the state here or of the ranking (a trace creates its caches as it goes)
      const ranked = activity?.for === want ? activity.rows : null;
      const entries = caches.map((c) => ({ id: c.id, name: c.name, st: c, act: ranked?.get(c.id) ?? null, alive: c.alive }));
      for (const [id, r] of ranked ?? []) if (!caches.some((c) => c.id === id)) entries.push({ id, name: r.name, st: null, act: r, alive: true });
      const cols = [['name', 'cache', (e) => e.name, 'the cache'],
        ...ACTIVITY_COLS.map(([id, label, title]) => [id, label, (e) => (ranked ? (e.act?.[id] ?? 0) : null), title]),
        ...STATE_COLS.slice(1).map(([id, label, f, title]) => [id, label, (e) => (e.st ? f(e.st) : null), title])];
      const get = cols.find((c) => c[0] === sort.col)?.[2] ?? ((e) => e.id);
      const list = entries.sort((a, b) => {
        const x = get(a) ?? -1, y = get(b) ?? -1;
        const r = typeof x === 'string' ? x.localeCompare(y) : x - y;
        return (sort.desc ? -r : r) || a.id - b.id;
      });
      const cell = (e, id, i) => {
        const v = cols[i][2](e);
        if (v === null) return e.st || !ranked ? '…' : '–';
        return id === 'use' ? `${v}%` : String(v);
      };
      // the table's shape: which rows, in which order, with which buttons; a
      // step that keeps it (most do) only changes the numbers in their cells
      const k = `${sid}/${m.end}/${m.cacheId}/${sort.col}/${sort.desc}/${!!ranked}/` + list.map((e) => `${e.id}:${!!e.st}:${e.alive}`).join('|');
      const texts = list.map((e) => cols.map(([id], i) => (i ? cell(e, id, i) : '')));
      if (k === key) {
        texts.forEach((row, r) => {
          const tds = /** @type {HTMLTableRowElement} */ (body.rows[r]).cells;
          row.forEach((t, i) => { if (i) setText(tds[i], t); });
        });
        return;
      }
      key = k;
      fill(head, ...cols.map(([id, label, , title]) => h(doc, 'th', { scope: 'col', title, class: MAIN_COLS.has(id) ? null : 'more', dataset: { spot: `column:${id}` }, 'aria-sort': sort.col === id ? (sort.desc ? 'descending' : 'ascending') : 'none' },
        h(doc, 'button', { type: 'button', class: 'sort', dataset: { col: id }, onclick: () => { sort = { col: id, desc: sort.col === id ? !sort.desc : id !== 'name' }; key = ''; player.emit(); } },
          label, sort.col === id ? (sort.desc ? ' ▼' : ' ▲') : ''))), h(doc, 'th', { scope: 'col' }, 'check'));
      fill(body, ...list.map((e) => h(doc, 'tr', { class: e.id === m.cacheId ? 'current' : null, 'aria-selected': String(e.id === m.cacheId), dataset: { cache: e.id } },
        ...cols.map(([id], i) => i === 0
          ? h(doc, 'th', { scope: 'row' }, e.st
            ? h(doc, 'button', { type: 'button', class: 'pick', 'aria-pressed': String(e.id === m.cacheId), onclick: () => player.setCache(e.id) },
              e.id === m.cacheId ? '▶ ' : '', e.name, e.alive ? '' : ' (destroyed)')
            : h(doc, 'button', { type: 'button', class: 'pick', title: 'not created yet at this step: goes to the end of the run', onclick: () => { player.seek(m.end).then(() => player.setCache(e.id)); } }, e.name))
          : h(doc, 'td', { class: MAIN_COLS.has(id) ? 'num' : 'num more' }, texts[list.indexOf(e)][i])),
        h(doc, 'td', null, e.st && e.alive ? validateButton(e.st) : ''))));
      if (!list.length) body.append(h(doc, 'tr', null, h(doc, 'td', { colspan: cols.length + 1 }, 'No cache yet: step forward.')));
    },
  };
}
