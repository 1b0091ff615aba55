// @ts-check
// The transport: start, back by operation or event, play/pause, forward,
// end, speed, predict mode, and the scrubber with markers for notable events.

import { h, fill, setText, setAttr } from '../dom.js';
import { stepText, positionText } from '../format.js';
import { NOTABLE } from '../counters.js';
import { spreadMarkers } from '../layout.js';
import { SPEEDS } from '../state.js';
import { termById } from '../glossary.js';

/** @param {{ onTerm?: (id: string) => void }} [o] onTerm: the glossary at term @id */
export function createTimeline(root, player, o = {}) {
  const doc = root.ownerDocument;
  const notable = termById('notable');
  // the marks' own words: hover shows the glossary's, a click opens it there
  const marksTerm = o.onTerm && notable ? h(doc, 'button', { type: 'button', id: 'marks-term', class: 'term marks-term', dataset: { term: 'notable' },
    title: `${notable.term}: ${notable.words} (click: the glossary)`, 'aria-label': 'The timeline\'s marks, in the glossary', onclick: () => o.onTerm?.('notable') }, 'marks?') : null;
  const btn = (id, label, key, fn) => h(doc, 'button', { type: 'button', id, 'aria-keyshortcuts': key, title: `${label} (${key})`, onclick: fn }, label);
  const play = btn('play', 'Play', 'Space', () => player.toggle());
  const speedOut = h(doc, 'output', { id: 'speed-out', for: 'speed-down speed-up', 'aria-live': 'off' });
  const speedUp = btn('speed-up', '+', '+', () => player.faster());
  const by = h(doc, 'select', { id: 'play-by', 'aria-label': 'Play step by' },
    h(doc, 'option', { value: 'event' }, 'each event'), h(doc, 'option', { value: 'op' }, 'each operation'));
  by.addEventListener('change', () => player.setBy(by.value));
  const range = h(doc, 'input', { type: 'range', id: 'scrubber', min: 0, max: 0, value: 0, step: 1, 'aria-label': 'Position in the run' });
  let scrubTimer = 0;
  range.addEventListener('input', () => {
    clearTimeout(scrubTimer);
    const v = Number(range.value);
    scrubTimer = setTimeout(() => player.seek(v), 30);
  });
  const marks = h(doc, 'div', { class: 'markers', role: 'group', 'aria-label': 'Notable events' });
  const pos = h(doc, 'span', { class: 'pos', id: 'position' });
  // predict mode (views/question.js asks; main.js writes the score)
  const predict = h(doc, 'button', { type: 'button', id: 'predict', 'aria-pressed': 'false', 'aria-keyshortcuts': 'q',
    title: 'Predict: stop before each decision the kernel takes and ask what happens next (q)', onclick: () => player.togglePredict() }, 'Predict');
  const score = h(doc, 'span', { class: 'score', id: 'score', title: 'Your predictions: right of asked', hidden: true });
  fill(root,
    h(doc, 'div', { class: 'transport', role: 'toolbar', 'aria-label': 'Player' },
      btn('home', '|◀ Start', 'Home', () => player.home()),
      btn('back-op', '◀◀ Op', 'Shift+ArrowLeft', () => player.step(-1, 'op')),
      btn('back', '◀ Event', 'ArrowLeft', () => player.step(-1, 'event')),
      play,
      btn('fwd', 'Event ▶', 'ArrowRight', () => player.step(1, 'event')),
      btn('fwd-op', 'Op ▶▶', 'Shift+ArrowRight', () => player.step(1, 'op')),
      btn('end', 'End ▶|', 'End', () => player.endPos()),
      h(doc, 'span', { class: 'speed' }, btn('speed-down', '−', '-', () => player.slower()), speedOut, speedUp),
      h(doc, 'label', { class: 'play-by' }, 'Play ', by),
      btn('prev-mark', '◁ notable', 'p', () => player.toMarker(-1)),
      btn('next-mark', 'notable ▷', 'n', () => player.toMarker(1)),
      marksTerm,
      predict, score,
      pos),
    h(doc, 'div', { class: 'scrub' }, range, marks));

  // Markers go where their step is, unless that would hide another: then
  // they take a second row, or move apart a little (layout.js).
  // Laid out again when the track's width or the markers' size changes.
  const scrub = /** @type {HTMLElement} */ (range.parentElement);
  let placed = '';
  function placeMarks() {
    const bs = /** @type {HTMLElement[]} */ ([...marks.children]);
    // no markers, nothing to measure: reading the width would lay the page out in the middle of a render
    if (!bs.length) return;
    const w = marks.clientWidth;
    if (!w) return;
    const widths = bs.map((b) => b.offsetWidth), rowH = Math.max(...bs.map((b) => b.offsetHeight)) + 2;
    const key = `${w}/${widths.join()}/${rowH}`;
    if (key === placed) return;
    placed = key;
    const xs = bs.map((b) => Number(b.dataset.frac) * w);
    const r = spreadMarkers(xs, widths, w, { gap: 2, maxLanes: 2, overhang: 8 });
    bs.forEach((b, i) => {
      // one that does not fit even in two rows (thousands of markers) is not drawn, nor focusable
      b.style.visibility = r.keep[i] ? '' : 'hidden';
      b.style.left = `${r.left[i]}px`;
      b.style.top = `${r.lane[i] * rowH}px`;
    });
    marks.style.height = `${r.lanes * rowH}px`;
    // room under the scrubber for every row (the presenter view's larger text included)
    scrub.style.removeProperty('padding-bottom');
    const base = parseFloat(doc.defaultView?.getComputedStyle(scrub).paddingBottom ?? '0') || 0;
    const need = marks.offsetTop + r.lanes * rowH - (range.offsetTop + range.offsetHeight);
    if (need > base) scrub.style.paddingBottom = `${Math.ceil(need)}px`;
  }
  if (doc.defaultView?.ResizeObserver) new doc.defaultView.ResizeObserver(() => placeMarks()).observe(marks);

  let markKey = '';
  return {
    render(m) {
      setText(play, m.playing ? '❚❚ Pause' : '▶ Play');
      setAttr(play, 'aria-pressed', String(m.playing));
      setAttr(predict, 'aria-pressed', String(!!m.predict));
      // the speed it plays at, once measured; no faster speed than is reached
      setText(speedOut, m.playing && m.playRate !== null ? `${Math.round(m.playRate)} of ${m.speed} steps/s` : `${m.speed} steps/s`);
      setAttr(speedOut, 'title', m.playing && m.playRate !== null ? `Asked for ${m.speed} steps per second; playing at ${m.playRate.toFixed(1)}` : '');
      const top = m.speed >= m.speedLimit;
      setAttr(speedUp, 'aria-disabled', String(top));
      setAttr(speedUp, 'title', top && m.speedLimit < SPEEDS[SPEEDS.length - 1]
        ? `Faster (+): playing here reaches ${m.speedLimit} steps per second, not more` : 'Faster (+)');
      if (by.value !== m.by) by.value = m.by;
      if (range.max !== String(m.end)) range.max = String(m.end);
      if ((doc.activeElement !== range || !m.playing) && range.value !== String(m.at)) range.value = String(m.at);
      const text = stepText(m.at, m.end, m.cur?.event);
      setAttr(range, 'aria-valuetext', text);
      setText(pos, positionText(m.at, m.end, m.cur?.event, m.ops));
      const key = `${m.session?.id}/${m.end}/${m.markers.length}`;
      if (key !== markKey) {
        markKey = key;
        const shown = m.markers.length > 300 ? m.markers.filter((_, i) => i % Math.ceil(m.markers.length / 300) === 0) : m.markers;
        fill(marks, ...shown.map((mk) => {
          const b = h(doc, 'button', { type: 'button', class: `mark mk-${mk.kind}`, title: `${mk.title} at step ${mk.at}${notable ? ` (a notable event: ${notable.words})` : ''}`,
            'aria-label': `${mk.title} at step ${mk.at}`, onclick: () => player.seek(mk.at) }, NOTABLE.find((n) => n.key === mk.kind)?.glyph ?? '•');
          b.dataset.frac = String(m.end ? mk.at / m.end : 0);
          return b;
        }));
        placed = '';
      }
      // the markers' size follows the text size (the presenter view): cheap to check once laid out
      const size = doc.body?.className ?? '';
      if (size !== marks.dataset.size || !placed) { marks.dataset.size = size; placed = ''; placeMarks(); }
    },
  };
}
