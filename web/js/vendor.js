// @ts-check
// The one global the UI reads: Chart.js, loaded by index.html's classic
// script from /vendor/chart.umd.js (deferred, after main.js, so evaluating
// it overlaps the first requests instead of delaying them).  chart() is
// null until it has run, or when it failed to load.
export const chart = () => /** @type {any} */ (globalThis).Chart ?? null;
