// @ts-check
// The one global the UI reads: Chart.js, loaded by a classic script the
// first time a chart is shown (loadChart()), so it is not on the first
// state's path.  The development page loads /vendor/chart.umd.js; the
// bundle (scripts/bundle-web.mjs) names its own hashed copy in
// SLUBLAB_CHART_URL.  An offline copy (web/offline/loader.js) has set
// globalThis.Chart before the UI starts.

/* global SLUBLAB_CHART_URL */
// @ts-ignore: defined by the bundle, absent from the modules
const URL_ = typeof SLUBLAB_CHART_URL === 'string' ? SLUBLAB_CHART_URL : '/vendor/chart.umd.js';

/** Chart.js once it has run, else null. */
export const chart = () => /** @type {any} */ (globalThis).Chart ?? null;

/** @type {Promise<any>|null} */
let loading = null;

/**
 * Load Chart.js (once); resolves to it, or to null when it cannot load
 * (the next call tries again).
 * @param {Document} doc
 */
export function loadChart(doc) {
  if (chart()) return Promise.resolve(chart());
  loading ??= new Promise((done) => {
    const s = doc.createElement('script');
    s.src = URL_;
    s.onload = () => done(chart());
    s.onerror = () => { s.remove(); loading = null; done(null); };
    doc.head.append(s);
  });
  return loading;
}
