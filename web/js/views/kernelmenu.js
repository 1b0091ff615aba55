// @ts-check
// The header's Kernel menu: the releases the engine models, as the server
// lists them (GET /api/kernels), and the one the lab's session runs.
// Picking a release starts a session of the shipped scenario shown with
// {"kernel": X.Y}, as `slublab run --kernel X.Y` runs it; a scenario of
// one's own names its kernel in its "kernel" key instead, so the menu only
// shows it then.  No allocator logic: what a release is comes from the server.

/**
 * The option the menu shows for a session's settings: its release, or the
 * "(model ...)" entry for a model chosen by hand.
 * @param {{ kernel?: string|null, model?: string }|undefined} settings
 * @returns {{ value: string, label: string }} label: the entry for no release
 */
export function kernelChoice(settings) {
  const k = settings?.kernel;
  if (k) return { value: k, label: '(model)' };
  return { value: '', label: settings?.model ? `(model ${settings.model})` : '(model)' };
}

/**
 * @param {HTMLSelectElement} select the menu, holding the no-release entry (value '') first
 * @param {{ onPick: (kernel: string) => void }} o told when a release is picked
 */
export function createKernelMenu(select, o) {
  const doc = select.ownerDocument;
  const none = /** @type {HTMLOptionElement} */ (select.options[0]);
  let settings;

  function show() {
    const c = kernelChoice(settings);
    // the session's release, shown even when the list never came (an offline copy has no server)
    if (c.value && ![...select.options].some((x) => x.value === c.value)) {
      const opt = doc.createElement('option');
      opt.value = c.value;
      opt.textContent = `Linux ${c.value}`;
      select.append(opt);
    }
    if (none.textContent !== c.label) none.textContent = c.label;
    if (select.value !== c.value) select.value = c.value;
  }

  select.addEventListener('change', () => {
    if (!select.value) { show(); return; }
    o.onPick(select.value);
  });

  return {
    /** Add the releases ({default, kernels: [{name, model}]}). */
    fill(list) {
      for (const k of list.kernels ?? []) {
        [...select.options].find((x) => x.value === k.name)?.remove(); // shown before the list came
        const opt = doc.createElement('option');
        opt.value = k.name;
        opt.title = `${k.model}${k.name === list.default ? ' (the default: the newest release modelled)' : ''}`;
        opt.textContent = `Linux ${k.name}`;
        select.append(opt);
      }
      show();
    },
    /**
     * The lab's session runs with @s (its settings); @pickable: a release
     * can be picked for its scenario (a shipped one).
     * @param {any} s
     * @param {boolean} pickable
     */
    showing(s, pickable) {
      settings = s;
      if (select.disabled !== !pickable) select.disabled = !pickable;
      const title = pickable ? 'Run this scenario on another kernel release'
        : 'Your own scenario: give it a "kernel" key to run it on another release';
      if (select.title !== title) select.title = title;
      show();
    },
  };
}
