// @ts-check
// Breakpoints: stop playing when an event of a kind runs or a counter
// increases; "run to breakpoint" asks the server to search ahead.

import { h, fill } from '../dom.js';
import { NOTABLE, COUNTER_NAMES, modelCounters } from '../counters.js';
import { makeBreakpoint } from '../state.js';

/** The breakpoint of key @key (makeBreakpoint's keys), or null. */
export function fromKey(key) {
  const i = key.indexOf(':'), kind = key.slice(0, i), rest = key.slice(i + 1);
  try {
    if (kind === 'fn') { const [name, label] = rest.split('/'); return makeBreakpoint({ kind, name, label }); }
    return kind === 'notable' || kind === 'counter' ? makeBreakpoint({ kind, name: rest }) : null;
  } catch { return null; }
}

export function createBreakpoints(root, player) {
  const doc = root.ownerDocument;
  const checks = NOTABLE.map((n) => {
    const b = makeBreakpoint({ kind: 'notable', name: n.key });
    const cb = h(doc, 'input', { type: 'checkbox', id: `bp-${n.key}`, value: b.key });
    cb.addEventListener('change', () => (cb.checked ? player.addBreakpoint(b) : player.removeBreakpoint(b.key)));
    return { cb, b, n, label: h(doc, 'label', null, cb, ` stop when ${b.title === 'a slab is discarded' ? b.title : n.key === 'new_slab' ? 'a new slab is made' : `${b.title} happens`}`) };
  });
  // every counter is built once; render() shows those of the session's model
  const counter = h(doc, 'select', { id: 'bp-counter', 'aria-label': 'Counter', 'data-keep-focus': '' }, COUNTER_NAMES.map((c) => h(doc, 'option', { value: c }, c)));
  const addCounter = h(doc, 'button', { type: 'button', id: 'bp-add-counter', onclick: () => player.addBreakpoint(makeBreakpoint({ kind: 'counter', name: counter.value })) }, 'Add');
  const fn = h(doc, 'input', { type: 'text', id: 'bp-fn', placeholder: 'new_slab', 'aria-label': 'Kernel function' });
  const label = h(doc, 'input', { type: 'text', id: 'bp-label', placeholder: 'label (optional)', 'aria-label': 'Label' });
  const addFn = h(doc, 'button', { type: 'button', id: 'bp-add-fn', onclick: () => { if (fn.value.trim()) player.addBreakpoint(makeBreakpoint({ kind: 'fn', name: fn.value.trim(), label: label.value.trim() })); } }, 'Add');
  const list = h(doc, 'ul', { class: 'bplist', id: 'bp-list' });
  const runTo = h(doc, 'button', { type: 'button', id: 'bp-run', 'aria-keyshortcuts': 'b', onclick: () => player.runToBreakpoint() }, 'Run to next breakpoint (b)');
  fill(root, ...checks.map((c) => c.label),
    h(doc, 'p', { class: 'row' }, h(doc, 'span', null, 'stop when '), counter, h(doc, 'span', null, ' increases '), addCounter),
    h(doc, 'p', { class: 'row' }, h(doc, 'span', null, 'stop at '), fn, label, addFn),
    list, runTo);
  let key = '', modelKey = '';
  /** Offer only what the session's model counts (a legacy kernel has no barn_put_fail). */
  function showModel(names) {
    const has = new Set(names);
    for (const c of checks) c.label.hidden = c.n.counter != null && !has.has(c.n.counter);
    for (const o of counter.options) o.hidden = o.disabled = !has.has(o.value);
    if (!has.has(counter.value)) counter.value = names[0] ?? '';
  }
  const note = h(doc, 'p', { class: 'note', id: 'bp-presenter', hidden: true }, 'The presenter\'s breakpoints (read-only while you follow):');
  root.prepend(note);
  const controls = [...root.querySelectorAll('input, select, button')];
  return {
    render(m) {
      const names = modelCounters(m.session?.info);
      if (names.join() !== modelKey) { modelKey = names.join(); showModel(names); }
      // a follower of a lecture shows the presenter's breakpoints, ticked and read-only
      const theirs = m.following && m.lectureView ? (m.lectureView.breakpoints ?? []).map(fromKey).filter(Boolean) : null;
      const bps = theirs ?? m.breakpoints;
      const k = `${theirs ? 'p' : 'm'}${bps.map((b) => b.key).join('|')}${m.hitBreakpoint?.key ?? ''}`;
      if (k === key) return;
      key = k;
      note.hidden = !theirs;
      for (const c of controls) c.disabled = !!theirs;
      for (const c of checks) c.cb.checked = bps.some((b) => b.key === c.b.key);
      fill(list, bps.map((b) => h(doc, 'li', { class: m.hitBreakpoint?.key === b.key ? 'hit' : null },
        m.hitBreakpoint?.key === b.key ? '● ' : '', b.title, ' ',
        theirs ? null : h(doc, 'button', { type: 'button', class: 'link', 'aria-label': `Remove breakpoint ${b.title}`, onclick: () => player.removeBreakpoint(b.key) }, 'remove'))));
    },
  };
}
