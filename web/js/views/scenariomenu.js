// @ts-check
// The header's Scenario menu: the shipped scenarios, and which one the
// lab shows.  A scenario of one's own (the editor, a kernel trace) shows
// as "(custom: NAME)", even when it reuses a shipped name; forks and
// extensions of a session keep what their session was.

/**
 * What the menu shows for scenario @name: the shipped option of that name,
 * or the custom entry ('') with its label.
 * @param {string} name the session's scenario name ('' when none)
 * @param {string[]} shipped the names of the shipped scenarios
 * @param {boolean|null} custom true: from the editor or a trace; false: picked
 *   from this menu; null: unknown (a link), told by the name
 * @returns {{ value: string, label: string }} label: the custom entry's text
 */
export function menuChoice(name, shipped, custom) {
  const isShipped = custom !== true && !!name && shipped.includes(name);
  return { value: isShipped ? name : '', label: !isShipped && name ? `(custom: ${name})` : '(custom)' };
}

/**
 * @param {HTMLSelectElement} select the menu, holding the custom entry (value '') first
 * @param {{ onPick: (name: string) => void }} o told when a shipped scenario is picked
 */
export function createScenarioMenu(select, o) {
  const doc = select.ownerDocument;
  let custom = /** @type {boolean|null} */ (null);
  let name = '';
  const custom0 = /** @type {HTMLOptionElement} */ (select.options[0]);

  function show() {
    const shipped = [...select.options].map((x) => x.value).filter(Boolean);
    const c = menuChoice(name, shipped, custom);
    if (custom0.textContent !== c.label) custom0.textContent = c.label;
    if (select.value !== c.value) select.value = c.value;
  }

  select.addEventListener('change', () => {
    if (!select.value) { show(); return; }
    custom = false;
    o.onPick(select.value);
  });

  return {
    /** Add the shipped scenarios ({name, title}). */
    fill(list) {
      for (const s of list) {
        const opt = doc.createElement('option');
        opt.value = s.name;
        opt.title = s.title ?? '';
        opt.textContent = s.name;
        select.append(opt);
      }
      show();
    },
    /**
     * The lab shows scenario @scenarioName now; @kind says where it came
     * from when known (undefined: as before, for a fork or an extension).
     * @param {string} scenarioName
     * @param {'custom'|'shipped'|null} [kind] null: unknown, told by the name
     */
    showing(scenarioName, kind) {
      name = scenarioName ?? '';
      if (kind !== undefined) custom = kind === null ? null : kind === 'custom';
      show();
    },
  };
}
