// @ts-check
// The race view (docs/teaching.md, "The race lab"): shown when the
// session's events carry `step`.  One lane per context with its steps in
// the order they ran (the current one marked, a lost compare or trylock
// marked ✗), the shared words lit as the current step reads (◉) and
// writes (✎) them, what each context read and still believes, the
// counters a lost race bumps, and the schedule as a bar of chips.  The
// student reorders the chips (drag, or select and Alt+←/→), adds or
// removes some, and Run makes a new session of the same scenario with that
// schedule (POST /api/sessions); a schedule the engine refuses shows the
// server's message.  The model is web/js/race.js; this file only draws it.

import { h, fill } from '../dom.js';
import {
  findRaces, raceAt, raceState, parseSchedule, scheduleText, moveItem, coverage, ranSchedule, withSchedule,
  raceOpOf, wordName, valueName, kindShort, contextName, stepWords, RACE_COUNTERS,
} from '../race.js';

/** @typedef {import('../race.js').Token} Token */

/**
 * @param {HTMLElement} root the section to draw in (index.html's #race)
 * @param {any} player
 * @param {{ api: any }} o
 */
export function createRace(root, player, o) {
  const doc = root.ownerDocument;
  /** @type {Map<string, Promise<any>>} scenario objects by session id */
  const scenarios = new Map();
  /** @type {Token[]} the chips, as the student arranged them */
  let draft = [];
  let sel = 0;
  /** the session, race and schedule the chips were made for */
  let draftFor = '';
  let shownSchedule = '';
  let message = /** @type {{ text: string, err: boolean }|null} */ (null);
  let busy = false;
  /** @type {{ from: number, to: number, x: number, y: number, id: number, moved: boolean }|null} */
  let drag = null;
  /** the race shown: its index among the session's race ops, its steps and contexts */
  let shown = /** @type {any} */ (null);
  let racesOf = { events: /** @type {any} */ (null), list: /** @type {any[]} */ ([]) };

  const title = h(doc, 'h2', { id: 'race-title' }, 'The race');
  const counters = h(doc, 'p', { class: 'race-count', id: 'race-count' });
  const lanes = h(doc, 'div', { class: 'race-lanes scroll-x', id: 'race-lanes', tabindex: '0', role: 'region', 'aria-label': 'Lanes: the steps of each context' });
  const lanesCap = h(doc, 'p', { class: 'race-cap', id: 'race-lanes-cap' });
  const words = h(doc, 'div', { class: 'race-words', id: 'race-words' });
  const report = h(doc, 'div', { class: 'race-report', id: 'race-report' });
  const chips = h(doc, 'ol', {
    class: 'race-chips', id: 'race-chips', role: 'listbox', 'aria-orientation': 'horizontal',
    'aria-labelledby': 'race-sched-label', 'aria-describedby': 'race-sched-help',
  });
  const rest = h(doc, 'span', { class: 'race-rest', id: 'race-rest' });
  const text = /** @type {HTMLInputElement} */ (h(doc, 'input', { id: 'race-sched-text', type: 'text', spellcheck: 'false', autocomplete: 'off' }));
  const runBtn = /** @type {HTMLButtonElement} */ (h(doc, 'button', { type: 'button', id: 'race-run', onclick: () => { run(); } }, 'Run this schedule'));
  const resetBtn = h(doc, 'button', { type: 'button', id: 'race-reset', onclick: () => { setDraft(parseSchedule(shownSchedule)); } }, 'Back to the schedule shown');
  const adders = h(doc, 'span', { class: 'race-add', id: 'race-add' });
  const status = h(doc, 'p', { class: 'race-msg', id: 'race-msg', role: 'status', 'aria-live': 'polite' });
  fill(root,
    h(doc, 'div', { class: 'race-head' }, title, counters),
    h(doc, 'div', { class: 'race-body' }, h(doc, 'div', { class: 'race-lanes-box' }, lanesCap, lanes), words),
    report,
    h(doc, 'div', { class: 'race-sched' },
      h(doc, 'div', { class: 'race-bar' }, h(doc, 'span', { id: 'race-sched-label', class: 'race-label' }, 'Schedule'), chips, rest),
      h(doc, 'div', { class: 'race-edit' },
        h(doc, 'label', { for: 'race-sched-text' }, 'As text '), text, adders, runBtn, resetBtn),
      h(doc, 'p', { id: 'race-sched-help', class: 'race-help' },
        'Drag a chip, or select it and press ', h(doc, 'kbd', null, 'Alt'), '+', h(doc, 'kbd', null, '←'), ' / ', h(doc, 'kbd', null, '→'),
        ' to move it; ', h(doc, 'kbd', null, 'Delete'), ' removes it, ', h(doc, 'kbd', null, 'Enter'), ' runs. ',
        h(doc, 'code', null, 'A'), ' is one step of A, ', h(doc, 'code', null, 'A*'), ' runs A to its end, ',
        h(doc, 'code', null, 'A>1'), ' migrates A to CPU 1; steps left over run in context order. A context\'s steps are numbered from 0 (A0, A1, …), as the engine\'s messages number them.'),
      status));
  root.hidden = true;

  text.addEventListener('input', () => { draft = parseSchedule(text.value); sel = Math.min(sel, Math.max(0, draft.length - 1)); drawChips(); });
  text.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') { ev.preventDefault(); run(); } });
  chips.addEventListener('keydown', onKey);
  chips.addEventListener('focusin', (ev) => {
    const li = /** @type {HTMLElement} */ (ev.target).closest?.('li[data-i]');
    const i = li ? Number(/** @type {HTMLElement} */ (li).dataset.i) : sel;
    if (i !== sel) { sel = i; drawChips(); }
  });
  chips.addEventListener('pointerdown', onDown);
  chips.addEventListener('pointermove', onMove);
  chips.addEventListener('pointerup', onUp);
  chips.addEventListener('pointercancel', () => { drag = null; drawChips(); });

  // ---- the race's definition: the contexts and the schedule it ran

  /** The scenario object session @info ran: one this page sent (api.js keeps them), else the shipped one of its name. */
  function scenarioOf(info) {
    const sent = o.api.sentScenario(info.id);
    if (sent) return Promise.resolve(sent);
    let p = scenarios.get(info.id);
    if (!p) {
      p = info.scenario?.name ? o.api.scenario(info.scenario.name).then((r) => r.scenario, () => null) : Promise.resolve(null);
      scenarios.set(info.id, p);
    }
    return p;
  }

  /** The race op as the session gave it (`races` of GET /api/sessions/ID), or as its scenario has it. */
  function defOf(m) {
    const info = m.session?.info;
    const fromInfo = info?.races?.[shown.index];
    if (fromInfo) return fromInfo;
    const sc = o.api.sentScenario(info?.id);
    if (sc) return raceOpOf(sc, shown.index);
    return shown.shipped ?? null;
  }

  function setDraft(tokens) {
    draft = tokens;
    sel = Math.min(sel, Math.max(0, draft.length - 1));
    text.value = scheduleText(draft);
    drawChips();
  }

  // ---- drawing

  function render(m) {
    if (racesOf.events !== m.events) racesOf = { events: m.events, list: findRaces(m.events.values()) };
    const found = raceAt(racesOf.list, m.at);
    root.hidden = !found;
    if (!found) return;
    const info = m.session.info;
    const key = `${info.id}/${found.index}`;
    if (shown?.key !== key) {
      shown = { key, index: found.index, shipped: null };
      // the shipped scenario's race op, when the session says nothing and this view did not make it
      if (!info.races && !o.api.sentScenario(info.id)) {
        const k = shown;
        scenarioOf(info).then((sc) => { if (shown === k && sc) { k.shipped = raceOpOf(sc, k.index); player.emit(); } });
      }
    }
    const race = found.race;
    const def = defOf(m);
    // the schedule this run followed: the definition's when the steps follow it, else read back from the steps
    const ran = def?.schedule && coverage(parseSchedule(def.schedule), race.steps) ? def.schedule : ranSchedule(race.steps);
    if (draftFor !== `${key}:${ran}`) {
      draftFor = `${key}:${ran}`;
      shownSchedule = ran;
      sel = 0;
      setDraft(parseSchedule(ran));
    }
    const st = raceState(race, def, m.at);
    const names = m.cur?.names ?? {};
    const slabName = (a) => m.cur?.state?.slabs?.find((x) => x.addr === a)?.name ?? null;
    const lanesDef = st.lanes.map((l) => contextName(l.id, l.def ?? { cpu: l.cpu }));
    title.textContent = `The race: ${lanesDef.join(' against ')}`;
    drawCounters(m, race, st);
    drawLanes(st, names, slabName, !!m.predict);
    drawWords(st, names, slabName);
    drawReport(m, race);
    drawAdders(st.lanes.map((l) => l.id));
    drawChips(race.steps);
    keepCurrentInView();
  }

  function drawCounters(m, race, st) {
    const cache = m.cur?.state?.caches?.find((c) => c.id === race.steps[0].cache);
    const have = m.session?.info?.counters;
    const list = RACE_COUNTERS.filter((c) => !have || have.includes(c) || st.counters[c] > 0);
    const parts = list.map((c) => {
      const total = cache?.stats?.[c] ?? st.counters[c];
      const up = st.bumped.includes(c);
      return h(doc, 'span', { class: `race-counter${up ? ' bumped' : ''}`, 'data-counter': c },
        h(doc, 'code', null, c), ' ', h(doc, 'b', null, String(total)), up ? ' ▲ +1 at this step' : '');
    });
    const lostN = st.lost.length;
    fill(counters, ...parts.flatMap((p, i) => (i ? [' · ', p] : [p])),
      lostN ? h(doc, 'span', { class: 'race-lost' }, `${parts.length ? ' · ' : ''}✗ ${lostN} failed ${lostN === 1 ? 'step' : 'steps'} so far (${[...new Set(st.lost.map((e) => e.step.kind))].join(', ')})`) : '');
  }

  /** @param {boolean} predict the steps to come are kept back (their ✓, ✗, ⚠, even a retry's steps, would answer the question) */
  function drawLanes(st, names, slabName, predict) {
    const head = h(doc, 'tr', null, h(doc, 'th', { scope: 'col', class: 'race-ctx' }, 'Context'),
      Array.from({ length: st.columns }, (_, i) => h(doc, 'th', { scope: 'col', class: 'race-col' }, String(i + 1))));
    const rows = st.lanes.map((l) => {
      const byCol = new Map(l.cells.map((c) => [c.col, c]));
      // what a context still has to act on: nothing once it is done
      const held = l.done ? [] : l.held.filter((x) => x.word !== 'c->slab');
      const th = h(doc, 'th', { scope: 'row', class: 'race-ctx' },
        h(doc, 'span', { class: 'race-ctx-name' }, contextName(l.id, l.def ?? { cpu: l.cpu })),
        l.now !== undefined && l.now !== (l.def?.cpu ?? l.cpu) ? h(doc, 'span', { class: 'race-ctx-now' }, ` now on CPU ${l.now}`) : '',
        l.done ? h(doc, 'span', { class: 'race-ctx-done' }, ' ✓ done') : '',
        held.length ? h(doc, 'ul', { class: 'race-held', 'aria-label': `What ${l.id} read` }, held.map((x) => h(doc, 'li', { class: x.stale ? 'stale' : '' },
          `${wordName(x, { names, slabName })} = ${valueName(x, x.value, { names, slabName })}`, x.stale ? ' ⚠ changed since' : ''))) : '');
      const tds = Array.from({ length: st.columns }, (_, col) => {
        const c = byCol.get(col);
        if (!c) return h(doc, 'td', { class: 'race-gap' });
        if (predict && c.when === 'next') return h(doc, 'td', { class: 'race-gap race-kept', title: 'A step to come: predict mode keeps it back' }, '?');
        const say = stepWords(c.e, { names, slabName, prior: l.cells.map((x) => x.e) });
        const more = c.follows ? ` +${c.follows}` : '';
        const whole = c.follows ? ` Then the ${c.follows} ${c.follows === 1 ? 'event' : 'events'} of what the step runs whole.` : '';
        const kind = kindShort(c.kind), report = c.report;
        const btn = h(doc, 'button', {
          type: 'button', class: `race-step ${c.when}${c.lost ? ' lost' : ''}${report ? ' reported' : ''}`, 'data-seq': c.e.seq, 'data-kind': c.kind,
          'aria-current': c.when === 'current' ? 'step' : false, title: say + whole,
          'aria-label': `${report ? '⚠ ' : ''}${kind} ${l.id}${c.index}${more}, step ${col + 1} of the schedule, ${c.when === 'current' ? 'the current step' : c.when === 'done' ? 'done' : 'to come'}: ${say}.${whole}`,
          onclick: () => player.seek(c.e.seq + 1),
        }, h(doc, 'span', { class: 'k' }, `${report ? '⚠ ' : ''}${kind}`), ' ', h(doc, 'span', { class: 'n' }, `${l.id}${c.index}${more}`));
        return h(doc, 'td', null, btn);
      });
      return h(doc, 'tr', { 'data-ctx': l.id }, th, tds);
    });
    const table = h(doc, 'table', { class: 'race-table', 'aria-labelledby': 'race-lanes-cap' },
      h(doc, 'thead', null, head), h(doc, 'tbody', null, rows));
    lanesCap.textContent = st.started ? (st.finished ? 'Every step has run.' : 'Steps in the order they run; the current one is outlined.')
      : 'The race has not started: step forward (→) to run its first step.';
    fill(lanes, table);
  }

  /** Scroll the lanes so that the current step shows beside the contexts' names (after the words' table took its width). */
  function keepCurrentInView() {
    const cur = lanes.querySelector('.race-step.current');
    if (!cur) return;
    const r = cur.getBoundingClientRect(), b = lanes.getBoundingClientRect();
    const left = b.left + (lanes.querySelector('th.race-ctx')?.getBoundingClientRect().width ?? 0);
    if (r.left < left || r.right > b.right) lanes.scrollLeft += r.left - left - (b.right - left - r.width) / 3;
  }

  function drawWords(st, names, slabName) {
    const rows = st.words.map((w) => {
      const v = (x) => valueName(w, x, { names, slabName });
      const lit = w.lit === 'write' ? ['wr', `✎ ${w.by} writes: ${v(w.old)} → ${v(w.value)}`]
        : w.lit === 'read' ? ['rd', `◉ ${w.by} reads it`]
          : w.lit === 'fail' ? ['cf', `✗ ${w.by} compares: not what it read`]
            : w.lit === 'held' ? ['cf', `✗ ${w.by} finds it held`] : ['', ''];
      return h(doc, 'tr', { class: lit[0], 'data-word': w.word },
        h(doc, 'th', { scope: 'row' }, h(doc, 'code', null, wordName(w, { names, slabName }))),
        h(doc, 'td', { class: 'v', title: String(w.value ?? '') }, v(w.value)),
        h(doc, 'td', { class: 'lit' }, lit[1]));
    });
    fill(words, h(doc, 'table', { class: 'race-table words' },
      h(doc, 'caption', { class: 'race-cap' }, 'Shared words, as they stand'),
      h(doc, 'thead', null, h(doc, 'tr', null, h(doc, 'th', { scope: 'col' }, 'Word'), h(doc, 'th', { scope: 'col' }, 'Value'), h(doc, 'th', { scope: 'col' }, 'This step'))),
      h(doc, 'tbody', null, rows)));
  }

  /** The reports (a misuse, the validator's) of the race op's events up to the position. */
  function drawReport(m, race) {
    const out = [];
    for (const e of m.events.values()) if (e.op === race.op && e.report && e.seq < m.at) out.push(e);
    fill(report, out.map((e) => h(doc, 'p', { class: 'err' }, '⚠ ', e.fn ? h(doc, 'code', null, e.fn) : '', e.fn ? ': ' : '', e.report)));
  }

  function drawAdders(ids) {
    const want = ids.join(',');
    if (adders.dataset.ids === want) return;
    adders.dataset.ids = want;
    fill(adders, 'Add ', ids.flatMap((id) => [
      h(doc, 'button', { type: 'button', class: 'race-addbtn', 'aria-label': `Add one step of ${id}`, onclick: () => add(`${id}`) }, id),
      h(doc, 'button', { type: 'button', class: 'race-addbtn', 'aria-label': `Add ${id} to its end`, onclick: () => add(`${id}*`) }, `${id}*`),
    ]));
  }

  function add(t) {
    setDraft([...draft, ...parseSchedule(t)]);
    sel = draft.length - 1;
    drawChips();
  }

  /** @param {any[]} [steps] the steps of the race shown, to say how many each chip ran */
  function drawChips(steps = shown?.steps) {
    if (steps) shown.steps = steps;
    const same = scheduleText(draft) === shownSchedule;
    const cov = same && steps ? coverage(draft, steps) : null;
    const items = draft.map((t, i) => {
      const what = t.kind === 'run' ? `${t.ctx} runs to its end` : t.kind === 'migrate' ? `${t.ctx} migrates to CPU ${t.cpu}`
        : t.kind === 'arrive' ? `interrupt ${t.ctx} arrives` : t.kind === 'bad' ? 'not a token' : `one step of ${t.ctx}`;
      const n = cov?.counts[i];
      const cls = ['race-chip', `ctx-${t.ctx.replace(/\W/g, '')}`, t.kind === 'bad' ? 'bad' : '',
        drag && drag.moved && drag.to === i && drag.from !== i ? 'drop' : '', drag && drag.from === i && drag.moved ? 'dragging' : ''];
      return h(doc, 'li', {
        role: 'option', id: `race-chip-${i}`, class: cls.filter(Boolean).join(' '), 'data-i': i,
        'aria-selected': String(i === sel), tabindex: i === sel ? '0' : '-1',
        'aria-label': `${t.text}${n && n > 1 ? ` ×${n}` : ''}, chip ${i + 1}: ${what}${n ? ` (${n} ${n === 1 ? 'step' : 'steps'})` : ''}`,
      }, t.text, n && n > 1 ? h(doc, 'small', null, ` ×${n}`) : '');
    });
    if (drag && drag.moved && drag.to >= draft.length) items.push(h(doc, 'li', { class: 'race-chip drop end', 'aria-hidden': 'true' }, ' '));
    const focused = chips.contains(doc.activeElement);
    fill(chips, items);
    if (!draft.length) chips.append(h(doc, 'li', { role: 'option', class: 'race-chip empty', 'aria-selected': 'false', tabindex: '0' }, '(empty: every context runs in turn)'));
    if (focused) /** @type {HTMLElement|null} */ (chips.querySelector('[tabindex="0"]'))?.focus();
    fill(rest, cov?.rest.length ? `then ${cov.rest.map((r) => `${r.ctx} (${r.count})`).join(', ')}` : '');
    if (text.value !== scheduleText(draft) && doc.activeElement !== text) text.value = scheduleText(draft);
    runBtn.disabled = busy;
    runBtn.textContent = busy ? 'Running…' : same ? 'Run this schedule again' : 'Run this schedule';
    status.className = `race-msg${message?.err ? ' err' : ''}`;
    status.textContent = message?.text ?? (same ? '' : 'Changed: Run shows what this schedule does.');
  }

  // ---- keys and pointer

  /** @param {KeyboardEvent} ev */
  function onKey(ev) {
    const k = ev.key;
    let handled = true;
    if ((k === 'ArrowLeft' || k === 'ArrowRight') && ev.altKey) {
      const to = sel + (k === 'ArrowLeft' ? -1 : 1);
      if (to >= 0 && to < draft.length) { draft = moveItem(draft, sel, to); sel = to; text.value = scheduleText(draft); }
    } else if (k === 'ArrowLeft' || k === 'ArrowRight') sel = Math.max(0, Math.min(draft.length - 1, sel + (k === 'ArrowLeft' ? -1 : 1)));
    else if (k === 'Home') sel = 0;
    else if (k === 'End') sel = Math.max(0, draft.length - 1);
    else if (k === 'Delete' || k === 'Backspace') { if (draft.length) { draft = draft.filter((_, i) => i !== sel); sel = Math.max(0, Math.min(sel, draft.length - 1)); text.value = scheduleText(draft); } }
    else if (k === 'Enter') run();
    else if (k === ' ') { /* selects: the chip with the focus is selected already */ }
    else handled = false;
    if (!handled) return;
    ev.preventDefault();
    ev.stopPropagation(); // not the lab's shortcuts (← → step the player)
    message = null;
    drawChips();
  }

  /** The chip index a pointer at (@x, @y) would drop before. */
  function dropIndex(x, y) {
    const els = [...chips.querySelectorAll('li.race-chip[data-i]')];
    for (let i = 0; i < els.length; i++) {
      const r = els[i].getBoundingClientRect();
      if (y < r.top - 4) return i;
      if (y <= r.bottom + 4 && x < r.left + r.width / 2) return i;
    }
    return els.length;
  }

  /** @param {PointerEvent} ev */
  function onDown(ev) {
    const li = /** @type {HTMLElement|null} */ (/** @type {HTMLElement} */ (ev.target).closest?.('li[data-i]'));
    if (!li || ev.button !== 0) return;
    const i = Number(li.dataset.i);
    drag = { from: i, to: i, x: ev.clientX, y: ev.clientY, id: ev.pointerId, moved: false };
    sel = i;
    chips.setPointerCapture?.(ev.pointerId);
    ev.preventDefault();
    drawChips();
    /** @type {HTMLElement|null} */ (chips.querySelector(`#race-chip-${i}`))?.focus();
  }

  /** @param {PointerEvent} ev */
  function onMove(ev) {
    if (!drag || ev.pointerId !== drag.id) return;
    if (!drag.moved && Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 5) return;
    drag.moved = true;
    const to = dropIndex(ev.clientX, ev.clientY);
    if (to !== drag.to) { drag.to = to; drawChips(); }
  }

  /** @param {PointerEvent} ev */
  function onUp(ev) {
    if (!drag || ev.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    if (d.moved) {
      const to = d.to > d.from ? d.to - 1 : d.to;
      draft = moveItem(draft, d.from, to);
      sel = to;
      text.value = scheduleText(draft);
      message = null;
    }
    drawChips();
  }

  // ---- Run: a new session of the same scenario with the schedule

  async function run() {
    const m = player.get();
    const info = m.session?.info;
    if (!info || !shown || busy) return;
    const schedule = scheduleText(draft);
    busy = true;
    message = { text: `Running ${schedule || '(empty)'}…`, err: false };
    drawChips();
    try {
      const sc = await scenarioOf(info);
      if (!sc || !raceOpOf(sc, shown.index)) throw new Error('this session\'s scenario is not one the lab can run again here: change its schedule in Your scenario');
      const next = withSchedule(sc, shown.index, schedule);
      // the release the session ran, when the Kernel menu chose another than the scenario's
      const kernel = info.settings?.kernel;
      const r = await o.api.createSession({ scenario: next, seed: info.settings?.seed, ...(sc.kernel && kernel && kernel !== sc.kernel ? { kernel } : {}) });
      const start = racesOf.list[shown.index]?.steps[0]?.seq ?? 0;
      message = null;
      busy = false;
      await player.open({ id: r.id, token: r.token, at: Math.min(start, r.events) });
      message = { text: `Ran ${schedule}: a new session; step forward (→) through the race.`, err: false };
    } catch (err) {
      busy = false;
      message = { text: `The engine did not run this schedule: ${err?.message ?? err}`, err: true };
    }
    drawChips();
  }

  return {
    render,
    run,
    /** The chips' schedule, as text (for tests). */
    draft: () => scheduleText(draft),
  };
}
