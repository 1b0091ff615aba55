// @ts-check
// Explanations: the scenario's teaching text, the current event in words,
// the kernel's own choice when the step is at one (each other option a
// button that opens that run, and the way back from such a run), and the
// code panel (the kernel function's outline, current step marked, and
// where the session's kernel release defines it).

import { h, fill } from '../dom.js';
import { stepDetail, moveGroups } from '../format.js';
import { outlineFor } from '../outline.js';
import { sourceRefs, sourceLinesLoaded } from '../sourcelines.js';
import { counterMeaning } from '../counters.js';
import { choiceSentence, optionWords } from '../choices.js';

/**
 * The references of sourceRefs() as text and links, " · " between them.
 * @param {Document} doc @param {import('../sourcelines.js').SourceRef[]} refs
 */
export function sourceLinks(doc, refs) {
  return refs.flatMap((r, i) => [
    i ? ' · ' : '',
    'url' in r ? h(doc, 'a', { href: r.url, target: '_blank', rel: 'noopener' }, r.text) : r.text,
  ]);
}

/**
 * @typedef {{ id: string, token: string|null, at: number, text: string }} ChoiceBack
 *   the run a choice fork was made from, and what the fork takes
 * @typedef {{ onFork?: (option: number) => Promise<any>, onBack?: (to: ChoiceBack) => Promise<any>,
 *   backOf?: (id: string) => ChoiceBack|null }} ExplainHooks
 */

const capital = (/** @type {string} */ t) => t.charAt(0).toUpperCase() + t.slice(1);

/** @param {HTMLElement} root @param {ExplainHooks} [hooks] */
export function createExplain(root, hooks = {}) {
  const doc = root.ownerDocument;
  const title = h(doc, 'h2', { id: 'scenario-title' });
  const teach = h(doc, 'p', { id: 'teaching', class: 'teaching' });
  const detail = h(doc, 'p', { id: 'event-detail', class: 'detail' });
  const report = h(doc, 'pre', { id: 'event-report', class: 'report', hidden: true });
  const bumped = h(doc, 'ul', { id: 'bumped', class: 'bumped', 'aria-label': 'Counters this step bumped' });
  // what the step moved, from where to where, in the event's order (the order a sheaf was filled in)
  const moves = h(doc, 'ol', { id: 'event-moves', class: 'moves', 'aria-label': 'What this step moved', dataset: { spot: 'moves' } });
  const code = h(doc, 'section', { id: 'code-panel', class: 'code', 'aria-label': 'Kernel function of this step' });
  const choice = h(doc, 'div', { id: 'choice', class: 'choice', role: 'group', 'aria-label': 'The kernel\'s choice at this step', hidden: true });
  const fromRun = h(doc, 'p', { id: 'choice-back', class: 'choice-back', hidden: true });
  // the choice first (on a phone a lesson's sheet covers the panel's lower
  // part), then the step (its sentence, moves and counters: a slide points at
  // them), then its kernel code, then the story
  fill(root, fromRun, choice, title, h(doc, 'h3', null, 'This step'), detail, moves, bumped, report, code,
    h(doc, 'h3', { id: 'story-head' }, 'The scenario'), teach);
  let key = '', codeKey = '', infoKey = null, predictShown = false, busy = false;

  /** @param {() => Promise<any>} act */
  async function run(act, btn) {
    if (busy) return;
    busy = true;
    btn.disabled = true;
    btn.setAttribute('aria-busy', 'true');
    try { await act(); } catch { /* the player's banner says why */ }
    busy = false;
    btn.disabled = false;
    btn.removeAttribute('aria-busy');
  }

  /** The choice at the step, with a button for each option the run did not take. */
  function drawChoice(c) {
    choice.hidden = !c;
    if (!c) { fill(choice); return; }
    const more = c.others_more ? h(doc, 'li', { class: 'choice-more' }, `and ${c.others_more.toLocaleString('en-US')} more (\`choices\` in a scenario reaches any: docs/scenario-format.md)`) : '';
    fill(choice,
      h(doc, 'p', { id: 'choice-say' }, choiceSentence(c), ' ', h(doc, 'span', { class: 'choice-taken' }, `This run: ${c.text}.`)),
      h(doc, 'ul', { class: 'choice-forks' },
        (c.others ?? []).map((/** @type {{ option: number, text: string }} */ o) => {
          const btn = /** @type {HTMLButtonElement} */ (h(doc, 'button', {
            type: 'button', class: 'choice-fork', 'data-option': String(o.option), title: o.text,
          }, `${capital(optionWords(c.kind, o.text))}: see that run`));
          btn.addEventListener('click', () => { if (hooks.onFork) run(() => hooks.onFork?.(o.option), btn); });
          return h(doc, 'li', null, btn);
        }),
        more));
  }

  /** In a run a choice fork made: what it takes and the way back. */
  function drawBack(id) {
    const b = id && hooks.backOf ? hooks.backOf(id) : null;
    fromRun.hidden = !b;
    if (!b) { fill(fromRun); return; }
    const btn = /** @type {HTMLButtonElement} */ (h(doc, 'button', { type: 'button', id: 'choice-back-btn' }, 'Back to the run it forked from'));
    btn.addEventListener('click', () => { if (hooks.onBack) run(() => hooks.onBack?.(b), btn); });
    fill(fromRun, `The run the kernel might make instead: ${b.text}. `, btn);
  }

  return {
    /** @param {any} m @param {string} sentence */
    render(m, sentence) {
      const info = m.session?.info;
      // in predict mode the scenario's story waits: it would tell what comes next
      if (info !== infoKey || m.predict !== predictShown) {
        infoKey = info;
        predictShown = m.predict;
        title.textContent = info ? info.scenario.title || info.scenario.name : '';
        teach.textContent = !info ? '' : m.predict && info.scenario.description
          ? 'The scenario\'s story is kept back in predict mode: it would tell what happens next. Predict mode off (q) shows it.'
          : info.scenario.description || '';
        teach.classList.toggle('kept', !!(m.predict && info?.scenario.description));
      }
      const e = m.cur?.event;
      const k = `${m.session?.id}@${m.at}`;
      if (k === key) return;
      key = k;
      detail.textContent = e ? `${sentence} ${stepDetail(m.at, e, m.ops)}` : sentence;
      drawChoice(e?.choice ?? null);
      drawBack(m.session?.id ?? '');
      const SHOWN = 16;
      fill(moves, moveGroups(e, m.cur?.names, m.cur?.same_as).map((g) => h(doc, 'li', null, h(doc, 'span', { class: 'mv-head' }, g.head),
        ': ', g.items.slice(0, SHOWN).map((x, i) => [i ? ', ' : '', h(doc, 'span', { class: 'mv-item' }, x)]), g.items.length > SHOWN ? `, … (${g.items.length - SHOWN} more)` : '')));
      moves.hidden = !moves.childElementCount;
      // The counters this event bumped, flashing (a static mark under reduced motion).
      fill(bumped, Object.entries(e?.stats ?? {}).map(([k, d]) => h(doc, 'li', { class: 'flash', title: counterMeaning(k) }, `${k} ${d > 0 ? '+' : ''}${d}`)));
      report.hidden = !e?.report;
      report.textContent = e?.report ?? '';
      const kernel = info?.settings?.kernel ?? null;
      const ck = e ? `${e.fn}/${e.label}/${Object.keys(e.stats ?? {})}/${kernel}/${sourceLinesLoaded()}` : '';
      if (ck === codeKey) return;
      codeKey = ck;
      const o = e ? outlineFor(e.fn, e.label) : null;
      // where the kernel has the step's statement: a lookup in data/source-lines.json
      const refs = e ? sourceRefs(e.fn, kernel, e) : [];
      const where = refs.length ? h(doc, 'p', { class: 'source-lines' }, sourceLinks(doc, refs)) : '';
      if (!o) {
        fill(code, h(doc, 'h3', null, e ? e.fn : 'No step yet'), where, h(doc, 'p', null, e ? 'No outline for this function yet.' : 'Step forward to see the kernel function of each event.'));
        return;
      }
      fill(code,
        h(doc, 'h3', null, h(doc, 'code', null, `${o.fn}()`), ` · ${o.file}`),
        where,
        h(doc, 'ol', { class: 'steps' }, o.steps.map((st, i) => h(doc, 'li', i === o.step ? { class: 'now', 'aria-current': 'step' } : null, st))));
    },
  };
}
