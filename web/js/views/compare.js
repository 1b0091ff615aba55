// @ts-check
// Compare: one scenario run twice (a variant before and after, or two
// models), side by side and stepped together by operation, with the
// counter table of /api/compare in the style of mm patch cover letters.

import { h, fill, download, downloadUrl } from '../dom.js';
import { api } from '../api.js';
import { createPlayer } from '../state.js';
import { createPicture } from './picture.js';
import { narrate, opCall, fmtChange, toCSV } from '../format.js';

/** Positions just after each operation: [0, end of op 0, end of op 1, ...]. */
export function opEnds(events, end) {
  const out = [0];
  for (let q = 1; q <= end; q++) {
    const a = events.get(q - 1), b = events.get(q);
    if (q === end || !b || !a || a.op !== b.op) out.push(q);
  }
  return out;
}

/** @param {{ win: Window & typeof globalThis, variants?: () => string[] }} o */
export function createCompare(root, o) {
  const doc = root.ownerDocument;
  const scen = h(doc, 'select', { id: 'cmp-scenario', 'aria-label': 'Scenario' });
  // The variants are those the server's sessions report (settings.variants).
  const names = o.variants?.().length ? o.variants() : ['DEFERRED_FREELIST', 'BARN_REFILL', 'REFILL_RETURN', 'DETACHED_FREELIST'];
  const axis = h(doc, 'select', { id: 'cmp-axis', 'aria-label': 'What differs' },
    ...names.map((v) => h(doc, 'option', { value: `variant:${v}` }, `${v}: before vs after`)),
    ...(names.includes('CPU_PARTIAL_DIRECT_LOAD') ? [] : [h(doc, 'option', { value: 'variant:CPU_PARTIAL_DIRECT_LOAD' }, 'CPU_PARTIAL_DIRECT_LOAD: before vs after (legacy model)')]),
    h(doc, 'option', { value: 'model:legacy,sheaves' }, 'model: legacy (6.x) vs sheaves (7.x)'),
    h(doc, 'option', { value: 'model:sheaves,legacy' }, 'model: sheaves vs legacy'));
  const run = h(doc, 'button', { type: 'button', id: 'cmp-run' }, 'Compare');
  const msg = h(doc, 'p', { class: 'msg', role: 'status', id: 'cmp-msg' });
  const pos = h(doc, 'span', { class: 'pos', id: 'cmp-pos' });
  const btn = (id, label, fn) => h(doc, 'button', { type: 'button', id, onclick: fn }, label);
  const sides = [0, 1].map((i) => {
    const title = h(doc, 'h3', null, i ? 'patched' : 'baseline');
    const say = h(doc, 'p', { class: 'say', id: `cmp-say-${i}` });
    const pic = h(doc, 'div', { class: 'picture small' });
    return { title, say, pic, root: h(doc, 'section', { class: 'side', 'aria-label': i ? 'patched' : 'baseline' }, title, say, pic),
      player: createPlayer(), picture: null, ends: [0] };
  });
  const hideZero = h(doc, 'input', { type: 'checkbox', id: 'cmp-hide', checked: true });
  const tbody = h(doc, 'tbody');
  const caption = h(doc, 'caption', { id: 'cmp-caption' }, 'Counters');
  const table = h(doc, 'table', { class: 'cover', id: 'cmp-table' },
    caption,
    h(doc, 'thead', null, h(doc, 'tr', null, ['metric', 'baseline', 'patched', 'change'].map((c) => h(doc, 'th', { scope: 'col' }, c)))), tbody);
  fill(root,
    h(doc, 'div', { class: 'row' }, h(doc, 'label', null, 'Scenario ', scen), h(doc, 'label', null, ' Compare ', axis), run),
    msg,
    h(doc, 'div', { class: 'transport', role: 'toolbar', 'aria-label': 'Step both' },
      btn('cmp-home', '|◀ Start', () => go(() => 0)), btn('cmp-back', '◀◀ Op', () => go((k) => k - 1)),
      btn('cmp-fwd', 'Op ▶▶', () => go((k) => k + 1)), btn('cmp-end', 'End ▶|', () => go(() => Infinity)), pos),
    h(doc, 'div', { class: 'cmp-body' },
      h(doc, 'div', { class: 'sides' }, sides.map((s) => s.root)),
      h(doc, 'div', null, table, h(doc, 'p', { class: 'row' }, h(doc, 'label', null, hideZero, ' hide counters that are 0 on both sides'),
        btn('cmp-csv', 'Table as CSV', () => exportCsv()),
        btn('cmp-md', 'Markdown report', () => { if (query) downloadUrl(doc, api.compareUrl(query, 'md')); }),
        btn('cmp-svg', 'Report chart (SVG)', () => { if (query) downloadUrl(doc, api.compareUrl(query, 'svg')); })))));
  api.scenarios().then((r) => { for (const x of r.scenarios) scen.append(h(doc, 'option', { value: x.name }, x.name)); }).catch(() => {});
  hideZero.addEventListener('change', () => drawTable());
  run.addEventListener('click', () => start());

  let k = 0, report = null, query = null;
  for (const s of sides) {
    s.picture = createPicture(s.pic, { onSelect: () => {}, win: o.win });
    s.player.subscribe((m) => o.win.requestAnimationFrame(() => {
      s.picture.render(m);
      const e = m.cur?.event;
      const name = (id) => m.cur?.state.caches.find((c) => c.id === id)?.name ?? '';
      s.say.textContent = narrate(e, { call: e ? opCall(s.player.opEvents(e.seq), name) : '', cacheName: e ? name(e.cache) : '' });
    }));
  }

  async function go(f) {
    const n = Math.max(...sides.map((s) => s.ends.length)) - 1;
    k = Math.max(0, Math.min(n, f(k)));
    pos.textContent = `operation ${k} of ${n}`;
    await Promise.all(sides.map((s) => s.player.seek(s.ends[Math.min(k, s.ends.length - 1)])));
  }

  function drawTable() {
    if (!report) return;
    const rows = report.rows.filter((r) => !hideZero.checked || r.baseline || r.patched);
    // across models a counter one kernel does not have is n/a (in_baseline / in_patched false)
    const val = (r, side) => (r[`in_${side}`] === false ? 'n/a' : String(r[side]));
    fill(tbody, rows.map((r) => h(doc, 'tr', { dataset: { metric: r.metric } }, h(doc, 'th', { scope: 'row' }, r.metric),
      h(doc, 'td', { class: 'num' }, val(r, 'baseline')), h(doc, 'td', { class: 'num' }, val(r, 'patched')),
      h(doc, 'td', { class: 'num' }, fmtChange(r.baseline, r.patched, r.change_pct)))));
  }

  function exportCsv() {
    if (!report) return;
    download(doc, `slublab-compare-${report.scenario}.csv`,
      toCSV([['metric', 'baseline', 'patched', 'change'], ...report.rows.map((r) => [r.metric, r.baseline, r.patched, fmtChange(r.baseline, r.patched, r.change_pct)])]), 'text/csv');
  }

  /** Run the comparison chosen in the form (or given). */
  async function start(name, which) {
    const scenario = name ?? scen.value;
    const [kind, val] = (which ?? axis.value).split(':');
    if (name) scen.value = name;
    if (which) axis.value = which;
    msg.textContent = 'Running both…';
    tbody.replaceChildren();
    try {
      const q = kind === 'variant' ? { scenario, variant: val } : { scenario, model: val };
      report = await api.compare(q);
      query = q;
      caption.replaceChildren(`${report.scenario}, cache ${report.cache}: ${report.baseline} (baseline) vs ${report.patched} (patched)`);
      drawTable();
      const settings = kind === 'variant' ? [{ variants: { [val]: 'before' } }, { variants: { [val]: 'after' } }]
        : val.split(',').map((mdl) => ({ model: mdl }));
      await Promise.all(sides.map(async (s, i) => {
        s.title.textContent = `${i ? 'patched' : 'baseline'}: ${i ? report.patched : report.baseline}`;
        await s.player.create(scenario, settings[i]);
        const m = s.player.get();
        s.ends = opEnds(m.events, m.end);
      }));
      msg.textContent = `${scenario}: ${report.baseline} vs ${report.patched}. Step both by operation.`;
      k = 0;
      await go((x) => x);
    } catch (err) {
      msg.textContent = `Cannot compare: ${err.message}`;
    }
  }

  return {
    start,
    step: (d) => go((x) => x + d),
    home: () => go(() => 0),
    end: () => go(() => Infinity),
    redraw: () => sides.forEach((s) => s.picture.redraw()),
    ready: () => !!report,
  };
}
