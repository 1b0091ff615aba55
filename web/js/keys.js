// @ts-check
// The keyboard shortcuts (index.html lists them, and `?` shows them over
// the page): which key does what in the lab and in the compare view.  One
// model: the lab's keys work whatever has the focus, except where text is
// typed; a menu or a checkbox hands the focus back to the page once used,
// and arrow keys never change a menu that is not held open.  keyCommand is
// pure; bindKeys listens on a document it is handed and runs the commands.

/**
 * A command: the method @name of the lab's player or of the compare view,
 * called with @args.
 * @typedef {{ target: 'player'|'compare'|'question'|'lesson'|'page', name: string, args: any[] }} Command
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
  q: () => ['togglePredict'],
};

/** The page's own keys, on every page: `?` shows (and hides) the list of keys. */
const PAGE = { '?': () => ['help'] };

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
 * plays), a menu (a select: the lab's keys, its arrows never change it
 * while it is shut), a checkbox or radio button (the lab's keys: Space
 * plays, it does not tick), a tab of a tab list (its arrows move between
 * the tabs), or anything else (null): a button, a link, a summary, the
 * picture.  A button just clicked keeps the focus, and the shortcuts still
 * work there: Space plays instead of pressing the button again (Enter
 * presses it).
 * @param {any} target the event's target
 * @param {any} win the window whose element classes to test against
 * @returns {'field'|'range'|'menu'|'check'|'tab'|null}
 */
export function focusKind(target, win) {
  if (!target) return null;
  if (target.closest?.('input, textarea, select, [contenteditable]:not([contenteditable="false"])')) {
    if (win.HTMLSelectElement && target instanceof win.HTMLSelectElement) return 'menu';
    if (target instanceof win.HTMLInputElement && (target.type === 'checkbox' || target.type === 'radio')) return 'check';
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
 * @param {'field'|'range'|'menu'|'check'|'tab'|null} [on] what has the focus (focusKind)
 * @param {{ question?: boolean, lesson?: boolean }} [open] a question waiting for
 *   an answer (the digit keys), a lesson shown (its slide keys), on the lab page
 * @returns {Command|null}
 */
export function keyCommand(ev, page, on = null, open = {}) {
  if (on === 'field' || (on === 'range' && ev.key !== ' ')) return null;
  if (on === 'tab' && (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight')) return null;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return null;
  if (Object.hasOwn(PAGE, ev.key)) return { target: 'page', name: PAGE[ev.key]()[0], args: [] };
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

/** Keys a shut menu would take as "choose the next or previous entry". */
const MENU_MOVES = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

/**
 * Whether a change of @target hands the focus back to the page: a menu, a
 * checkbox or a radio button, except in the scenario editor (a form filled
 * in field by field), in an open dialog, and where a button after it
 * completes the choice (marked data-keep-focus).
 * @param {any} target
 * @param {'field'|'range'|'menu'|'check'|'tab'|null} kind focusKind(target)
 */
export function handsBack(target, kind) {
  return (kind === 'menu' || kind === 'check') && !target.closest?.('#scenario-view, dialog, [data-keep-focus]');
}

/**
 * Listen for the shortcuts on @doc.  A shortcut's default action is
 * cancelled: Space neither scrolls the page nor presses the focused button
 * or ticks the focused checkbox (browsers do both on Space's keyup, so that
 * is cancelled too); an arrow on a shut menu does not change it.  A menu
 * chosen or a box ticked gives the focus back to the page (@o.home, or the
 * body), where the keys are the lab's again.  While a dialog is open (the
 * list of keys), only `?` (which closes it) is a shortcut.
 * @param {Document} doc
 * @param {{ page: () => string, run: (c: Command) => void, open?: () => { question?: boolean, lesson?: boolean },
 *           home?: () => HTMLElement|null }} o
 */
export function bindKeys(doc, o) {
  const win = doc.defaultView;
  let spaceTaken = false;
  doc.addEventListener('keydown', (ev) => {
    const kind = focusKind(ev.target, win);
    const dialog = doc.querySelector('dialog[open]');
    const c = dialog && ev.key !== '?' ? null : keyCommand(ev, o.page(), kind, o.open?.() ?? {});
    if (ev.key === ' ') spaceTaken = !!c;
    if (!c) {
      if (kind === 'menu' && !dialog && !ev.altKey && MENU_MOVES.has(ev.key)) ev.preventDefault();
      return;
    }
    ev.preventDefault();
    o.run(c);
  });
  doc.addEventListener('change', (ev) => {
    const t = /** @type {any} */ (ev.target);
    if (!handsBack(t, focusKind(t, win))) return;
    const home = o.home?.() ?? null;
    if (home) home.focus({ preventScroll: true });
    else t.blur?.();
  });
  doc.addEventListener('keyup', (ev) => {
    if (ev.key !== ' ' || !spaceTaken) return;
    spaceTaken = false;
    ev.preventDefault();
  });
}
