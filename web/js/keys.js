// @ts-check
// The keyboard shortcuts (index.html lists them): which key does what in
// the lab and in the compare view.  keyCommand is pure; bindKeys listens
// on a document it is handed and runs the commands.

/**
 * A command: the method @name of the lab's player or of the compare view,
 * called with @args.
 * @typedef {{ target: 'player'|'compare', name: string, args: any[] }} Command
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
};

/** The compare view's keys: both sides step together by operation. */
const COMPARE = {
  ArrowRight: () => ['step', 1],
  ArrowLeft: () => ['step', -1],
  Home: () => ['home'],
  End: () => ['end'],
};

/**
 * What has the focus, as far as the keys care: a form field (where keys
 * type), the scrubber (a range input: Space still plays), a button (Space
 * presses it) or anything else (null).
 * @param {any} target the event's target
 * @param {any} win the window whose element classes to test against
 * @returns {'field'|'range'|'button'|null}
 */
export function focusKind(target, win) {
  if (!target) return null;
  if (target.closest?.('input, textarea, select, [contenteditable]')) {
    return target instanceof win.HTMLInputElement && target.type === 'range' ? 'range' : 'field';
  }
  if (target instanceof win.HTMLButtonElement) return 'button';
  return null;
}

/**
 * The command of a key press on page @page ('lab', 'compare', 'scenario'),
 * or null when the key is not a shortcut there.
 * @param {{ key: string, shiftKey?: boolean, ctrlKey?: boolean, metaKey?: boolean, altKey?: boolean }} ev
 * @param {string} page
 * @param {'field'|'range'|'button'|null} [on] what has the focus (focusKind)
 * @returns {Command|null}
 */
export function keyCommand(ev, page, on = null) {
  if (on === 'field' || (on === 'range' && ev.key !== ' ')) return null;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return null;
  const table = page === 'compare' ? COMPARE : page === 'lab' ? LAB : null;
  if (!table || !Object.hasOwn(table, ev.key)) return null;
  if (page === 'lab' && on === 'button' && ev.key === ' ') return null;
  const [name, ...args] = table[ev.key](!!ev.shiftKey);
  return { target: page === 'compare' ? 'compare' : 'player', name, args };
}

/**
 * Listen for the shortcuts on @doc.
 * @param {Document} doc
 * @param {{ page: () => string, run: (c: Command) => void }} o
 */
export function bindKeys(doc, o) {
  const win = doc.defaultView;
  doc.addEventListener('keydown', (ev) => {
    const c = keyCommand(ev, o.page(), focusKind(ev.target, win));
    if (!c) return;
    ev.preventDefault();
    o.run(c);
  });
}
