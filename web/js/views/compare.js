// @ts-check
// Compare: one scenario, or one session's inputs, run twice (a variant
// before and after, or two models), side by side and stepped together by
// scenario operation, with the counter table of /api/compare in the style
// of mm patch cover letters.
//
// Both runs are sessions the server keeps (/api/compare?...&open=1), so a
// step by operation asks the server where each side's next operation
// boundary is: the page never counts operations among the events it
// happens to have loaded.

import { h, fill, download, downloadUrl } from '../dom.js';
import { api } from '../api.js';
import { createPlayer } from '../state.js';
import { createPicture } from './picture.js';
import { narrate, opCall, fmtChange, toCSV } from '../format.js';

/** The slab-state rows of the table, named as the cache's fields in a state. */
const FILES = ['objects', 'objects_partial', 'partial', 'slabs', 'total_objects'];

/**
 * What a comparison runs: a shipped scenario by name, or a session ("session:ID").
 * @param {string} value a Scenario menu value
 */
export function parseSource(value) {
  return value.startsWith('session:') ? { session: value.slice(8) } : { scenario: value };
}

/** The /api/compare query of source @src and axis @axis ("variant:NAME", "kernel:A,B" or "model:A,B"). */
export function compareQuery(src, axis) {
  const i = axis.indexOf(':');
  const kind = axis.slice(0, i), val = axis.slice(i + 1);
  return { ...parseSource(src), ...(kind === 'variant' ? { variant: val } : kind === 'kernel' ? { kernel: val } : { model: val }) };
}

/**
 * Side @k's value of row @r at a state: the cache's counter or slab-state
 * field, or 'n/a' when the side's kernel has no such counter.
 */
export function valueAt(cache, r, k) {
  if (r[`in_${k ? 'patched' : 'baseline'}`] === false) return 'n/a';
  if (!cache) return 0;
  return FILES.includes(r.metric) ? (cache[r.metric] ?? 0) : (cache.stats?.[r.metric] ?? 0);
}

/**
 * @param {HTMLElement} root
 * @param {{ win: Window & typeof globalThis, variants?: () => string[], kernels?: () => { default: string, kernels: { name: string }[] } | null, onChange?: () => void }} o
 */
export function createCompare(root, o) {
  const doc = root.ownerDocument;
  const scen = h(doc, 'select', { id: 'cmp-scenario', 'aria-label': 'Scenario' });
  // The variants are those the server's sessions report (settings.variants).
  const names = o.variants?.().length ? o.variants() : ['DEFERRED_FREELIST', 'BARN_REFILL', 'REFILL_RETURN', 'DETACHED_FREELIST'];
  const axis = h(doc, 'select', { id: 'cmp-axis', 'aria-label': 'What differs' },
    ...names.map((v) => h(doc, 'option', { value: `variant:${v}` }, `${v}: before vs after`)),
    ...(names.includes('CPU_PARTIAL_DIRECT_LOAD') ? [] : [h(doc, 'option', { value: 'variant:CPU_PARTIAL_DIRECT_LOAD' }, 'CPU_PARTIAL_DIRECT_LOAD: before vs after (legacy model)')]),
    // each release the server models against its default (GET /api/kernels)
    ...((o.kernels?.()?.kernels ?? []).filter((k) => k.name !== o.kernels?.()?.default)
      .map((k) => h(doc, 'option', { value: `kernel:${k.name},${o.kernels?.()?.default}` }, `kernel: ${k.name} vs ${o.kernels?.()?.default}`))),
    h(doc, 'option', { value: 'model:legacy,sheaves' }, 'model: legacy (6.x) vs sheaves (7.x)'),
    h(doc, 'option', { value: 'model:sheaves,legacy' }, 'model: sheaves vs legacy'));
  const run = h(doc, 'button', { type: 'button', id: 'cmp-run' }, 'Compare');
  const msg = h(doc, 'p', { class: 'msg', role: 'status', id: 'cmp-msg' });
  const warning = h(doc, 'p', { class: 'cmp-warning', id: 'cmp-warning', role: 'note', hidden: true });
  const pos = h(doc, 'span', { class: 'pos', id: 'cmp-pos', 'aria-live': 'polite' });
  const btn = (id, label, fn) => h(doc, 'button', { type: 'button', id, onclick: fn }, label);
  const sides = [0, 1].map((i) => {
    const title = h(doc, 'h2', null, i ? 'patched' : 'baseline');
    const where = h(doc, 'p', { class: 'side-pos', id: `cmp-side-pos-${i}` });
    const say = h(doc, 'p', { class: 'say', id: `cmp-say-${i}` });
    const pic = h(doc, 'div', { class: 'picture small' });
    return { title, where, say, pic, root: h(doc, 'section', { class: 'side', 'aria-label': i ? 'patched' : 'baseline' }, title, where, say, pic),
      player: createPlayer(), picture: null, id: '', op: 0, at: 0 };
  });
  const hideZero = h(doc, 'input', { type: 'checkbox', id: 'cmp-hide', checked: true });
  const atStep = h(doc, 'input', { type: 'checkbox', id: 'cmp-at-step' });
  const tbody = h(doc, 'tbody');
  const caption = h(doc, 'caption', { id: 'cmp-caption' }, 'Counters');
  const table = h(doc, 'table', { class: 'cover', id: 'cmp-table' },
    caption,
    h(doc, 'thead', null, h(doc, 'tr', null, ['metric', 'baseline', 'patched', 'change'].map((c) => h(doc, 'th', { scope: 'col' }, c)))), tbody);
  fill(root,
    h(doc, 'div', { class: 'row' }, h(doc, 'label', null, 'Scenario ', scen), h(doc, 'label', null, ' Compare ', axis), run),
    msg, warning,
    h(doc, 'div', { class: 'transport', role: 'toolbar', 'aria-label': 'Step both' },
      btn('cmp-home', '|◀ Start', () => go(() => 0)), btn('cmp-back', '◀◀ Op', () => go((x) => x - 1)),
      btn('cmp-fwd', 'Op ▶▶', () => go((x) => x + 1)), btn('cmp-end', 'End ▶|', () => go(() => Infinity)), pos),
    h(doc, 'div', { class: 'cmp-body' },
      h(doc, 'div', { class: 'sides' }, sides.map((s) => s.root)),
      h(doc, 'div', null, table,
        h(doc, 'p', { class: 'row' }, h(doc, 'label', null, atStep, ' counters at this step (else at the end)')),
        h(doc, 'p', { class: 'row' }, h(doc, 'label', null, hideZero, ' hide counters that are 0 on both sides'),
          btn('cmp-csv', 'Table as CSV', () => exportCsv()),
          btn('cmp-md', 'Markdown report', () => { if (query) downloadUrl(doc, api.compareUrl(query, 'md')); }),
          btn('cmp-svg', 'Report chart (SVG)', () => { if (query) downloadUrl(doc, api.compareUrl(query, 'svg')); })))));
  // The menu lists the shipped scenarios; a session compared gets its own entry.
  const listed = api.scenarios().then((r) => {
    for (const x of r.scenarios) scen.append(h(doc, 'option', { value: x.name }, x.name));
  }).catch(() => {}).then(() => showSource());
  hideZero.addEventListener('change', () => drawTable());
  atStep.addEventListener('change', () => { drawTable(); changed(); });
  run.addEventListener('click', () => start(scen.value, axis.value));
  // a scenario or axis the user chose while a comparison loads stays chosen (until Compare runs it)
  let picked = /** @type {{ scen: string|null, axis: string|null }} */ ({ scen: null, axis: null });
  scen.addEventListener('change', () => { picked.scen = scen.value; });
  axis.addEventListener('change', () => { picked.axis = axis.value; });

  let k = 0, total = 0, report = null, query = null, src = '', chain = Promise.resolve();
  const changed = () => o.onChange?.();
  for (const s of sides) {
    s.picture = createPicture(s.pic, { onSelect: () => {}, win: o.win, idPrefix: `cmp${sides.indexOf(s)}-` });
    s.player.subscribe((m) => o.win.requestAnimationFrame(() => {
      s.picture.render(m);
      const e = m.cur?.event;
      const name = (id) => m.cur?.state.caches.find((c) => c.id === id)?.name ?? '';
      s.say.textContent = narrate(e, { call: e ? opCall(s.player.opEvents(e.seq), name) : '', cacheName: e ? name(e.cache) : '', names: m.cur?.names });
      if (atStep.checked) drawTable();
    }));
  }

  /** Select the source in the menu, adding an entry for a session. */
  function showSource() {
    if (!src) return;
    if (src.startsWith('session:')) {
      let opt = [...scen.options].find((x) => x.value === src);
      const label = `this session: ${report?.scenario ?? src.slice(8)} (${src.slice(8)})`;
      if (!opt) scen.prepend(opt = h(doc, 'option', { value: src }, label));
      else opt.textContent = label;
    }
    scen.value = picked.scen ?? src;
    if (picked.axis) axis.value = picked.axis;
  }

  /** Where the sides stand, in words and in data-* for tests and tools. */
  function showPos() {
    pos.textContent = `operation ${k} of ${total}`;
    for (const s of sides) {
      Object.assign(s.root.dataset, { session: s.id, op: String(s.op), at: String(s.at) });
      s.where.textContent = `operation ${s.op}, event ${s.at}`;
    }
  }

  /** Bring side @s to scenario operation @want: the server steps by operation boundaries. */
  async function moveSide(s, want) {
    const m = s.player.get();
    want = Math.min(want, m.ops);
    for (let tries = 0; tries < 3 && s.op !== want; tries++) {
      let at;
      if (want === 0) at = 0;
      else if (want === m.ops) at = m.end;
      else {
        const d = want - s.op;
        at = (await api.state(s.id, { at: s.at, by: 'op', dir: d > 0 ? 'next' : 'prev', count: Math.abs(d) })).at;
      }
      await s.player.seek(at, { publish: false });
      const cur = s.player.get().cur;
      if (!cur || cur.at !== at) throw new Error(s.player.get().error ?? 'the side did not move');
      s.at = cur.at;
      s.op = cur.state.op;
    }
  }

  /** Move both sides to the latest target; calls queue, so each starts from where the last ended. */
  function go(f) {
    if (!report) return Promise.resolve();
    k = Math.max(0, Math.min(total, f(k)));
    pos.textContent = `operation ${k} of ${total}`;
    chain = chain.then(async () => {
      const want = k;
      await Promise.all(sides.map((s) => moveSide(s, want)));
      showPos();
      if (atStep.checked) drawTable();
      changed();
    }).catch((err) => { msg.textContent = `Cannot step: ${err.message}`; });
    return chain;
  }

  function rows() {
    if (!report) return [];
    const caches = sides.map((s) => s.player.get().cur?.state.caches.find((c) => c.name === report.cache));
    // a counter neither kernel has (no sysfs file) is left out, as the CLI's table does
    return report.rows.filter((r) => r.in_baseline !== false || r.in_patched !== false).map((r) => {
      if (!atStep.checked) return { ...r, b: r[`in_baseline`] === false ? 'n/a' : r.baseline, p: r[`in_patched`] === false ? 'n/a' : r.patched };
      const b = valueAt(caches[0], r, 0), p = valueAt(caches[1], r, 1);
      return { ...r, b, p, change_pct: typeof b === 'number' && typeof p === 'number' ? undefined : null };
    });
  }

  function drawTable() {
    if (!report) return;
    // the end totals, unless asked for the step (the report images quote the caption)
    caption.replaceChildren(`${report.scenario}, cache ${report.cache}: ${report.baseline} (baseline) vs ${report.patched} (patched)`
      + (atStep.checked ? `, at operation ${sides[0].op}` : ''));
    const some = (v) => typeof v === 'number' && v !== 0;
    const shown = rows().filter((r) => !hideZero.checked || some(r.b) || some(r.p) || (!atStep.checked && (r.baseline || r.patched)));
    fill(tbody, shown.map((r) => h(doc, 'tr', { dataset: { metric: r.metric } }, h(doc, 'th', { scope: 'row' }, r.metric),
      h(doc, 'td', { class: 'num' }, String(r.b)), h(doc, 'td', { class: 'num' }, String(r.p)),
      h(doc, 'td', { class: 'num' }, r.b === 'n/a' || r.p === 'n/a' ? 'n/a' : fmtChange(r.b, r.p, r.change_pct)))));
  }

  function exportCsv() {
    if (!report) return;
    download(doc, `slublab-compare-${report.scenario}${atStep.checked ? `-op${sides[0].op}` : ''}.csv`,
      toCSV([['metric', 'baseline', 'patched', 'change'], ...rows().map((r) => [r.metric, r.b, r.p,
        r.b === 'n/a' || r.p === 'n/a' ? 'n/a' : fmtChange(r.b, r.p, r.change_pct)])]), 'text/csv');
  }

  /**
   * Run a comparison: @source is a shipped scenario's name or "session:ID",
   * @which the axis ("variant:NAME", "model:A,B"); then go to operation @op.
   * @param {string} source @param {string} which
   * @param {{ op?: number, atStep?: boolean }} [opt]
   */
  async function start(source, which, opt = {}) {
    picked = { scen: null, axis: null };
    src = source;
    axis.value = which;
    if (opt.atStep !== undefined) atStep.checked = opt.atStep;
    showSource();
    msg.textContent = 'Running both…';
    warning.hidden = true;
    tbody.replaceChildren();
    report = null;
    try {
      const q = compareQuery(source, which);
      const r = await api.compare({ ...q, open: 1 });
      query = q;
      await Promise.all(sides.map(async (s, i) => {
        s.title.textContent = `${i ? 'patched' : 'baseline'}: ${i ? r.patched : r.baseline}`;
        s.id = r.runs[i].id;
        // read-only: the compare view moves its own copy of the position
        await s.player.open({ id: s.id, token: null, at: 0 });
        s.op = 0;
        s.at = 0;
      }));
      report = r;
      total = Math.max(...sides.map((s) => s.player.get().ops));
      showSource();
      if (r.warning) {
        warning.textContent = `⚠ Warning: ${r.warning}.`;
        warning.hidden = false;
      }
      msg.textContent = `${r.session ? `session ${r.session} (${r.scenario})` : r.scenario}: ${r.baseline} vs ${r.patched}. Step both by operation.`;
      k = 0;
      drawTable();
      await go(() => opt.op ?? 0);
      showPos();
      changed();
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
    /** What the comparison is, for the address bar (urlstate.js compareParams). */
    urlState: () => (report ? { source: src, axis: axis.value, op: k, atStep: atStep.checked } : null),
    /** The source it compares, or '' before the first comparison. */
    source: () => src,
    listed,
  };
}
