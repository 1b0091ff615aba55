// @ts-check
// Interactive mode: issue an operation at the current position (at the
// end it extends the session; earlier, the server forks a new one) and
// watch what happens.  One form per kind of OP_KINDS, plus raw JSON for
// any operation the scenario format accepts.

import { h, fill } from '../dom.js';
import { OP_KINDS, buildOp } from '../ops.js';
import { cacheView, allocatedObjects } from '../model.js';
import { shortAddr } from '../format.js';

export function createOpsForm(root, player) {
  const doc = root.ownerDocument;
  const kind = h(doc, 'select', { id: 'op-kind' }, OP_KINDS.map((k) => h(doc, 'option', { value: k.op }, `${k.op} (${k.call})`)));
  const fields = h(doc, 'div', { class: 'fields' });
  const msg = h(doc, 'p', { class: 'msg', role: 'status' });
  const run = h(doc, 'button', { type: 'submit', id: 'op-run' }, 'Run it');
  const raw = h(doc, 'textarea', { id: 'op-raw', rows: 3, spellcheck: 'false', placeholder: '[{"op": "alloc", "cpu": 0, "cache": "A"}]' });
  const rawRun = h(doc, 'button', { type: 'button', id: 'op-raw-run' }, 'Run JSON');
  const form = h(doc, 'form', { id: 'op-form' }, h(doc, 'label', null, 'Operation ', kind), fields, run);
  fill(root, form, h(doc, 'details', null, h(doc, 'summary', null, 'Any operation as JSON'),
    h(doc, 'label', { for: 'op-raw' }, 'Operations (a JSON array or one object)'), raw, rawRun), msg);
  let inputs = {};
  let key = '';

  function control(f, m, v) {
    const st = m.cur?.state;
    const id = `op-${f}`;
    const opt = (value, text) => h(doc, 'option', { value }, text);
    let el;
    if (f === 'cpu') el = h(doc, 'select', { id }, Array.from({ length: st?.nr_cpus ?? 1 }, (_, i) => opt(i, `CPU ${i}`)));
    else if (f === 'node') el = h(doc, 'select', { id }, opt('', 'any node'), Array.from({ length: st?.nr_nodes ?? 1 }, (_, i) => opt(i, `node ${i}`)));
    else if (f === 'cache') {
      const alive = (st?.caches ?? []).filter((c) => c.alive);
      el = h(doc, 'select', { id }, alive.length ? alive.map((c) => opt(c.name, c.name)) : opt('', `no cache yet at step ${m.at}`));
      el.value = v.cache?.name ?? '';
    } else if (f === 'object') {
      const objs = allocatedObjects(v, 500);
      el = h(doc, 'select', { id }, objs.length ? objs.map((a) => opt(a, `${shortAddr(a, 6)}`)) : opt('', 'no allocated object in this cache'));
      const sel = m.selection;
      if (sel?.kind === 'object' && objs.includes(sel.id)) el.value = sel.id;
    } else el = h(doc, 'input', { id, type: ['size', 'count', 'object_size', 'align', 'sheaf_capacity', 'offset', 'value', 'order'].includes(f) ? 'number' : 'text', min: 0,
      placeholder: f === 'gfp' ? 'GFP_KERNEL' : f === 'flags' ? 'SLAB_RED_ZONE, SLAB_POISON' : '' });
    inputs[f] = el;
    return h(doc, 'label', null, `${f} `, el);
  }

  function build(m) {
    const v = m.cur ? cacheView(m.cur.state, m.cacheId) : null;
    const k = OP_KINDS.find((x) => x.op === kind.value) ?? OP_KINDS[0];
    inputs = {};
    fill(fields, k.fields.map((f) => control(f, m, v)));
  }

  async function submit(ops) {
    run.setAttribute('disabled', ''); rawRun.setAttribute('disabled', '');
    msg.textContent = 'Running…';
    try {
      const r = await player.apply(ops);
      msg.textContent = r ? (r.forked ? `Forked a new session at the earlier step; ${r.events - r.from} new events.` : `${r.events - r.from} new events.`) : '';
    } catch (err) {
      msg.textContent = `Refused: ${err.message}`;
    } finally {
      run.removeAttribute('disabled'); rawRun.removeAttribute('disabled');
    }
  }

  kind.addEventListener('change', () => build(player.get()));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const m = player.get();
    const v = cacheView(m.cur.state, m.cacheId);
    const values = Object.fromEntries(Object.entries(inputs).map(([f, el]) => [f, el.value]));
    const r = buildOp(kind.value, values, (addr) => {
      for (const c of m.cur.state.caches) { const cv = c.id === v.cache?.id ? v : cacheView(m.cur.state, c.id); if (cv.slabOf(addr)) return c.name; }
      return null;
    }, { at: m.at, caches: m.cur.state.caches.filter((c) => c.alive).length });
    if (r.error) { msg.textContent = r.error; return; }
    submit([r.op]);
  });
  rawRun.addEventListener('click', () => {
    let ops;
    try { ops = JSON.parse(raw.value); } catch (err) { msg.textContent = `Not JSON: ${err.message}`; return; }
    submit(Array.isArray(ops) ? ops : [ops]);
  });

  return {
    render(m) {
      const k = `${m.session?.id}@${m.at}/${m.cacheId}/${m.selection?.id}`;
      if (k === key || !m.cur) return;
      key = k;
      const keep = Object.fromEntries(Object.entries(inputs).filter(([f]) => !['cache', 'object', 'cpu', 'node'].includes(f)).map(([f, el]) => [f, el.value]));
      const cpu = inputs.cpu?.value;
      build(m);
      for (const [f, val] of Object.entries(keep)) if (inputs[f]) inputs[f].value = val;
      if (cpu && inputs.cpu) inputs.cpu.value = cpu;
      run.textContent = m.at < m.end ? `Run it at step ${m.at} (forks)` : 'Run it';
    },
  };
}
