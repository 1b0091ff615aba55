// @ts-check
// The keyboard shortcuts (index.html lists them): which key does what in
// the lab and in the compare view.  keyCommand is pure; bindKeys listens
// on a document it is handed and runs the commands.

/**
 * A command: the method @name of the lab's player or of the compare view,
 * called with @args.
 * @typedef {{ target: 'player'|'compare'|'question'|'lesson', name: string, args: any[] }} Command
 */

/** The lab's keys: key → (shift held) → [player method, ...args]. */
const LAB = {
  ' ': () => ['toggle'],
  ArrowRight: (shift) => ['step', 1, shift ? 'op' : 'event'],
  ArrowLeft: (shift) => ['step', -1, shift ? 'op' : 'event'],
  Home: () => ['home'],
  End: () => ['endPos'],
  '+': () => ['faster'], '=': () => ['faster'],
  '-': () => ['slower'], _: () => ['slower'],
  b: () => ['runToBreakpoint'],
  n: () => ['toMarker', 1],
  p: () => ['toMarker', -1],
  '?': () => ['togglePredict'],
};

/** The keys of an open question: 1-9 pick its first nine choices (views/question.js). */
const QUESTION = Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [String(n), () => ['choose', n - 1]]));

/** The keys of an open lesson: the next and previous slide (views/lesson.js). */
const LESSON = { ']': () => ['next'], '[': () => ['prev'], PageDown: () => ['next'], PageUp: () => ['prev'] };

/** The compare view's keys: both sides step together by operation. */
const COMPARE = {
  ArrowRight: () => ['step', 1],
  ArrowLeft: () => ['step', -1],
  Home: () => ['home'],
  End: () => ['end'],
};

/**
 * What has the focus, as far as the keys care: a form field (where keys
 * type), the scrubber (a range input: its arrows move it, Space still
 * plays), a tab of a tab list (its arrows move between the tabs), or
 * anything else (null): a button, a link, a summary, the picture.  A
 * button just clicked keeps the focus, and the shortcuts still work there:
 * Space plays instead of pressing the button again (Enter presses it).
 * @param {any} target the event's target
 * @param {any} win the window whose element classes to test against
 * @returns {'field'|'range'|'tab'|null}
 */
export function focusKind(target, win) {
  if (!target) return null;
  if (target.closest?.('input, textarea, select, [contenteditable]:not([contenteditable="false"])')) {
    return target instanceof win.HTMLInputElement && target.type === 'range' ? 'range' : 'field';
  }
  if (target.getAttribute?.('role') === 'tab') return 'tab';
  return null;
}

/**
 * The command of a key press on page @page ('lab', 'compare', 'scenario'),
 * or null when the key is not a shortcut there.
 * @param {{ key: string, shiftKey?: boolean, ctrlKey?: boolean, metaKey?: boolean, altKey?: boolean }} ev
 * @param {string} page
 * @param {'field'|'range'|'tab'|null} [on] what has the focus (focusKind)
 * @param {{ question?: boolean, lesson?: boolean }} [open] a question waiting for
 *   an answer (the digit keys), a lesson shown (its slide keys), on the lab page
 * @returns {Command|null}
 */
export function keyCommand(ev, page, on = null, open = {}) {
  if (on === 'field' || (on === 'range' && ev.key !== ' ')) return null;
  if (on === 'tab' && (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight')) return null;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return null;
  if (page === 'lab' && open.question && Object.hasOwn(QUESTION, ev.key)) {
    const [name, ...args] = QUESTION[ev.key]();
    return { target: 'question', name, args };
  }
  if (page === 'lab' && open.lesson && Object.hasOwn(LESSON, ev.key)) {
    const [name, ...args] = LESSON[ev.key]();
    return { target: 'lesson', name, args };
  }
  const table = page === 'compare' ? COMPARE : page === 'lab' ? LAB : null;
  if (!table || !Object.hasOwn(table, ev.key)) return null;
  const [name, ...args] = table[ev.key](!!ev.shiftKey);
  return { target: page === 'compare' ? 'compare' : 'player', name, args };
}

/**
 * Listen for the shortcuts on @doc.  A shortcut's default action is
 * cancelled: Space neither scrolls the page nor presses the focused button
 * (browsers press a button on Space's keyup, so that is cancelled too).
 * @param {Document} doc
 * @param {{ page: () => string, run: (c: Command) => void, open?: () => { question?: boolean, lesson?: boolean } }} o
 */
export function bindKeys(doc, o) {
  const win = doc.defaultView;
  let spaceTaken = false;
  doc.addEventListener('keydown', (ev) => {
    const c = keyCommand(ev, o.page(), focusKind(ev.target, win), o.open?.() ?? {});
    if (ev.key === ' ') spaceTaken = !!c;
    if (!c) return;
    ev.preventDefault();
    o.run(c);
  });
  doc.addEventListener('keyup', (ev) => {
    if (ev.key !== ' ' || !spaceTaken) return;
    spaceTaken = false;
    ev.preventDefault();
  });
}
