// @ts-check
// The lesson player (docs/lessons.md): a lesson's slides over the live
// lab.  The panel shows the slide (its text in the format's markup, built
// as DOM text), a progress bar and Previous/Next; each slide moves the lab:
// a new session when it names another scenario (or kernel, or variants),
// the position, breakpoints, the details tab, the selection, and on an
// ask slide the question about the next event.

import { h, fill } from '../dom.js';
import { renderMarkup } from '../markup.js';
import { slideRun, clampSlide, slideBreakpoint, onward, spotSelector, spotLabel } from '../course.js';
import { makeBreakpoint } from '../state.js';
import { parseSelection } from '../urlstate.js';
import { sourceRefs } from '../sourcelines.js';
import { sourceLinks } from './explain.js';

/**
 * @param {HTMLElement} root the panel
 * @param {any} player
 * @param {{ api: any, showTab: (t: string) => void, onChange: () => void,
 *   course?: () => { lessons: any[], exercises: any[] }, onExercise?: (id: string) => void,
 *   linkTerms?: (el: HTMLElement) => void, onApplied?: () => void, onShowSpot?: () => void }} o
 *   onChange: the lesson or slide changed (the URL follows); course: the lessons and
 *   exercises the server lists (the last slide offers the next ones); linkTerms: the
 *   glossary's links in a slide's text; onApplied: a slide has moved the lab;
 *   onShowSpot: the student asks to see the slide's spotlight again
 */
export function createLessonPlayer(root, player, o) {
  const doc = root.ownerDocument;
  /** @type {any} */
  let lesson = null;
  let k = 1;
  let runKey = '', runSession = '';
  let busy = Promise.resolve();
  let error = '';
  let applies = 0;

  const prev = h(doc, 'button', { type: 'button', id: 'lesson-prev', 'aria-keyshortcuts': '[ PageUp', title: 'Previous slide ([)', onclick: () => go(k - 1) }, '◀ Previous');
  const next = h(doc, 'button', { type: 'button', id: 'lesson-next', 'aria-keyshortcuts': '] PageDown', title: 'Next slide (])', onclick: () => go(k + 1) }, 'Next ▶');
  // the student stepped away from the slide's position: back to it
  const back = h(doc, 'button', { type: 'button', id: 'lesson-back', hidden: true, onclick: () => { busy = busy.then(apply).catch(() => {}).finally(() => { applies++; o.onApplied?.(); }); } }, '↩ Back to this slide\'s step');
  // what the slide is about, scrolled into view again (on a phone, one tap from the sheet)
  const show = h(doc, 'button', { type: 'button', id: 'lesson-show', class: 'link', onclick: () => o.onShowSpot?.() }, 'Show it');
  const close = h(doc, 'button', { type: 'button', id: 'lesson-close', class: 'link', onclick: () => stop() }, 'Close the lesson');
  const bar = h(doc, 'div', { class: 'lesson-bar', id: 'lesson-progress', role: 'progressbar', 'aria-valuemin': '1', 'aria-label': 'Lesson progress' },
    h(doc, 'span', { class: 'lesson-fill' }));
  const head = h(doc, 'p', { class: 'lesson-head', id: 'lesson-head' });
  const title = h(doc, 'h2', { id: 'lesson-slide-title', tabindex: '-1' });
  const body = h(doc, 'div', { class: 'lesson-text', id: 'lesson-text' });
  const where = h(doc, 'p', { class: 'lesson-where', id: 'lesson-where', role: 'status' });
  // the kernel source of the step the slide shows (the code panel's link, on every tab)
  const source = h(doc, 'p', { class: 'source-lines lesson-source', id: 'lesson-source', hidden: true });
  let sourceKey = '';
  // on the last slide: the next lesson and the exercises that practise this one
  const onwards = h(doc, 'p', { class: 'lesson-onward row', id: 'lesson-onward', hidden: true });
  fill(root, head, bar, title, body, source, h(doc, 'p', { class: 'row lesson-nav' }, prev, next, back, show, where, close), onwards);
  root.hidden = true;

  function draw() {
    if (!lesson) { root.hidden = true; return; }
    const n = lesson.slides.length;
    const s = lesson.slides[k - 1];
    root.hidden = false;
    head.textContent = `Lesson: ${lesson.title} · slide ${k} of ${n}`;
    bar.setAttribute('aria-valuemax', String(n));
    bar.setAttribute('aria-valuenow', String(k));
    bar.setAttribute('aria-valuetext', `slide ${k} of ${n}`);
    /** @type {HTMLElement} */ (bar.firstChild).style.width = `${Math.round((k / n) * 100)}%`;
    title.textContent = s.title;
    fill(body, ...renderMarkup(doc, s.text ?? ''));
    o.linkTerms?.(body);
    show.textContent = `Show ${spotLabel(s)}`;
    prev.disabled = k <= 1;
    next.disabled = k >= n;
    where.textContent = error || (k >= n ? 'The end of the lesson.' : '');
    drawOnward(k >= n);
  }

  function drawOnward(last) {
    const c = last && o.course ? o.course() : null;
    const w = c ? onward(c.lessons, c.exercises, lesson.id) : null;
    onwards.hidden = !w;
    if (!w) { fill(onwards); return; }
    fill(onwards,
      w.next ? h(doc, 'button', { type: 'button', id: 'lesson-next-lesson', class: 'primary', onclick: () => { open(w.next.id, 1).catch(() => {}); } },
        `Next lesson: ${w.next.title} ▶`) : h(doc, 'span', null, 'That was the last lesson of the course.'),
      w.exercises.length ? h(doc, 'span', { class: 'lesson-exercises' }, 'Practise it: ',
        w.exercises.flatMap((x, i) => [i ? ', ' : '', h(doc, 'button', { type: 'button', class: 'link', dataset: { exercise: x.id }, onclick: () => o.onExercise?.(x.id) }, x.title)])) : null);
  }

  /** Move the lab to slide @k's place. */
  async function apply() {
    const s = lesson.slides[k - 1];
    const run = slideRun(lesson, k);
    const m = player.get();
    if (run && (run.key !== runKey || m.session?.id !== runSession)) {
      const settings = {};
      if (run.kernel) settings.kernel = run.kernel;
      if (run.variants) settings.variants = run.variants;
      await player.create(run.scenario, settings);
      runKey = run.key;
      runSession = player.get().session?.id ?? '';
    }
    if (s.breakpoints) {
      for (const b of player.get().breakpoints) player.removeBreakpoint(b.key);
      for (const t of s.breakpoints) {
        try { player.addBreakpoint(makeBreakpoint(slideBreakpoint(t))); } catch { /* a kind this lab does not know */ }
      }
    }
    if (s.at != null) await player.seek(s.at);
    if (s.tab) o.showTab(s.tab);
    if (s.select) player.select(parseSelection(s.select));
    if (s.ask) player.ask(s.at ?? player.get().at);
  }

  /** Show slide @to (kept within the lesson) and move the lab there. */
  function go(to) {
    if (!lesson) return Promise.resolve();
    const want = clampSlide(lesson, to);
    if (want === k && root.dataset.shown === String(k)) return busy;
    k = want;
    error = '';
    root.dataset.shown = String(k);
    draw();
    o.onChange();
    busy = busy.then(apply).catch((err) => { error = `This slide could not be shown: ${err.message}`; draw(); })
      .finally(() => { root.dataset.applied = String(k); applies++; o.onApplied?.(); });
    return busy;
  }

  /** Open lesson @id at slide @slide. */
  async function open(id, slide = 1) {
    error = '';
    const l = await o.api.lesson(id);
    if (!l?.slides?.length) throw new Error(`lesson ${id} has no slides`);
    lesson = l;
    runKey = '';
    delete root.dataset.shown;
    delete root.dataset.applied;
    k = clampSlide(l, slide);
    return go(k);
  }

  function stop() {
    lesson = null;
    delete root.dataset.shown;
    draw();
    o.onChange();
  }

  return {
    open,
    go,
    next: () => go(k + 1),
    prev: () => go(k - 1),
    stop,
    /** The lesson and slide shown, for the URL; null when none. */
    where: () => (lesson ? { id: lesson.id, slide: k } : null),
    active: () => !!lesson,
    /** Settled when the current slide has moved the lab. */
    settled: () => busy,
    /** Follow the lab: offer the way back once it left the slide's position. */
    render(m) {
      const s = lesson?.slides[k - 1];
      const away = !(!s || s.at == null || root.dataset.applied !== String(k) || m.at === s.at);
      if (back.hidden === away) back.hidden = !away;
      const e = s ? m.cur?.event : null;
      const kernel = m.session?.info?.settings?.kernel ?? null;
      const refs = e ? sourceRefs(e.fn, kernel, e) : [];
      const key = e ? `${m.session?.id}@${m.at}/${kernel}/${refs.length}` : '';
      if (key === sourceKey) return;
      sourceKey = key;
      source.hidden = !refs.length;
      fill(source, ...(refs.length ? ['Kernel source of this step: ', ...sourceLinks(doc, refs)] : []));
    },
    /** The slide's spotlight: a key that changes each time a slide is applied, and where it is. */
    spot: () => (lesson && root.dataset.applied === String(k) ? { key: `${lesson.id}/${k}/${applies}`, selector: spotSelector(lesson.slides[k - 1]) } : null),
    /** Draw again (the course's lists arrived). */
    redraw: () => { if (lesson) draw(); },
  };
}
