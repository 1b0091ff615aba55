// @ts-check
// Views whose module loads the first time they render: the tabs and
// panels a first visit may never open stay off the first picture's path.

/**
 * A view that loads on its first render.  Until then render() only starts
 * the load; @onLoad runs once the view exists (to render it).
 * @param {() => Promise<any>} load imports the view's module
 * @param {(module: any) => { render: (m: any) => any }} make builds the view from it
 * @param {() => void} onLoad
 */
export function lazyView(load, make, onLoad) {
  let view = null, p = null;
  return {
    render(m) {
      if (view) return view.render(m);
      p ??= load().then((x) => { view = make(x); onLoad(); });
      return undefined;
    },
    /** The view once loaded, else null. */
    get view() { return view; },
  };
}
