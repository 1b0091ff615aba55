// @ts-check
// The gfp decoder: type a mask as the kernel's tracepoints print it (or in
// hex), pick an order and a calling context, and the server says what it
// decides: zone, migratetype, the ALLOC flags of each attempt and the
// watermark each zone of the zonelist holds it to (GET /api/gfp).  The
// machine is the open scenario's.

import { h, fill } from '../dom.js';

export function createGfp(root, { api, scenario }) {
  const doc = root.ownerDocument;
  const mask = h(doc, 'input', { id: 'gfp-mask', type: 'text', value: 'GFP_KERNEL', spellcheck: 'false', size: 28, 'aria-describedby': 'gfp-hint' });
  const order = h(doc, 'select', { id: 'gfp-order' }, Array.from({ length: 11 }, (_, i) => h(doc, 'option', { value: String(i) }, String(i))));
  const context = h(doc, 'select', { id: 'gfp-context' }, ['task', 'atomic', 'rt'].map((c) => h(doc, 'option', { value: c }, c)));
  const out = h(doc, 'div', { id: 'gfp-result', 'aria-live': 'polite' });
  const err = h(doc, 'p', { id: 'gfp-error', class: 'err', role: 'alert', hidden: true });
  let seq = 0;
  async function decode() {
    const my = ++seq;
    err.hidden = true;
    try {
      const r = await api.gfp({ mask: mask.value.trim(), order: order.value, context: context.value, scenario: scenario() });
      if (my !== seq) return;
      show(r);
    } catch (e) {
      if (my !== seq) return;
      fill(out);
      err.textContent = e.message;
      err.hidden = false;
    }
  }
  const flagsRow = (label, f) => h(doc, 'tr', null, h(doc, 'th', { scope: 'row' }, label), h(doc, 'td', { class: 'hex' }, f.hex), h(doc, 'td', null, f.names));
  function show(r) {
    fill(out,
      h(doc, 'p', { id: 'gfp-summary' }, `${r.names} (${r.gfp}) at order ${r.order}, ${r.context} context: highest zone ${r.zone}, ${r.migratetype}; `,
        r.can_reclaim ? 'may block and reclaim' : 'cannot block', r.costly ? ', costly order' : '',
        `. Translation ${r.translate}, ALLOC layout ${r.alloc_layout}.`),
      h(doc, 'div', { class: 'scroll-x' }, h(doc, 'table', { class: 'state', id: 'gfp-flags' },
        h(doc, 'caption', null, 'ALLOC flags of each attempt'),
        h(doc, 'thead', null, h(doc, 'tr', null, ['attempt', 'hex', 'names'].map((c) => h(doc, 'th', { scope: 'col' }, c)))),
        h(doc, 'tbody', null, flagsRow('fast path', r.fast), flagsRow('slow path', r.slow), flagsRow('retry', r.retry)))),
      h(doc, 'div', { class: 'scroll-x' }, h(doc, 'table', { class: 'state', id: 'gfp-zones' },
        h(doc, 'caption', null, `Zonelist: a zone passes when its free pages less ${2 ** r.order - 1} exceed the threshold`),
        h(doc, 'thead', null, h(doc, 'tr', null, ['zone', 'free', 'min', 'low', 'high', 'reserve', 'fast', 'slow', 'retry'].map((c) => h(doc, 'th', { scope: 'col' }, c)))),
        h(doc, 'tbody', null, r.zonelist.map((z) => h(doc, 'tr', null,
          h(doc, 'th', { scope: 'row' }, `${z.zone} (node ${z.node})`),
          [z.free_pages, z.watermarks.min, z.watermarks.low, z.watermarks.high, z.lowmem_reserve, z.fast_threshold, z.slow_threshold, z.retry_threshold ?? 'none']
            .map((v) => h(doc, 'td', null, String(v)))))))));
  }
  const form = h(doc, 'form', { id: 'gfp-form', onsubmit: (ev) => { ev.preventDefault(); decode(); } },
    h(doc, 'div', { class: 'row' }, h(doc, 'label', null, 'Mask ', mask)),
    h(doc, 'div', { class: 'row' }, h(doc, 'label', null, 'Order ', order), h(doc, 'label', null, 'Context ', context),
      h(doc, 'button', { type: 'submit', id: 'gfp-decode' }, 'Decode')),
    h(doc, 'p', { id: 'gfp-hint', class: 'tiny' }, 'Names joined by | (GFP_KERNEL|__GFP_ZERO, GFP_ATOMIC|__GFP_NOMEMALLOC) or hex (0xcc0). The machine is the open scenario\'s.'));
  fill(root, form, err, out);
  let first = true;
  return {
    render() {
      if (first) { first = false; decode(); }
    },
    /** Fill the form and decode (from the page allocator view). */
    ask(m, o) {
      mask.value = m;
      order.value = String(o);
      decode();
    },
  };
}
