// @ts-check
// The details tabs (the ARIA tabs pattern) over index.html's markup: one
// selected tab, its panel shown and the others hidden, ←/→ on the tab
// list moving between them.

/**
 * @param {HTMLElement} list the tablist, holding a button #tabbtn-NAME per tab
 * @param {Record<string, HTMLElement>} panels the panel of each tab, in the tabs' order
 * @param {{ onShow: (name: string) => void }} o told after each change
 */
export function createTabs(list, panels, o) {
  const names = Object.keys(panels);
  const button = (x) => /** @type {HTMLElement} */ (list.querySelector(`#tabbtn-${x}`));
  let current = names[0];

  function show(t) {
    current = t;
    for (const x of names) {
      const b = button(x);
      b.setAttribute('aria-selected', String(x === t));
      b.tabIndex = x === t ? 0 : -1;
      panels[x].hidden = x !== t;
    }
    o.onShow(t);
  }

  for (const x of names) button(x).addEventListener('click', () => show(x));
  list.addEventListener('keydown', (ev) => {
    if (ev.key !== 'ArrowRight' && ev.key !== 'ArrowLeft') return;
    ev.preventDefault();
    const i = names.indexOf(current);
    const n = names[(i + (ev.key === 'ArrowRight' ? 1 : names.length - 1)) % names.length];
    show(n);
    button(n).focus();
  });

  return {
    show,
    names,
    /** The selected tab. */
    current: () => current,
  };
}
