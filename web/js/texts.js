// @ts-check
// The UI's words (data/texts.json): sentence templates, kernel-function
// outlines and counter meanings.  main.js loads them before the first
// render; tests load the file.  Pure.

/** @type {{ sentences: Record<string, string>, outlines: Record<string, any>, counters: Record<string, string> }} */
let T = { sentences: {}, outlines: {}, counters: {} };

/** Use @t (the parsed texts.json). */
export function setTexts(t) { T = { sentences: t.sentences ?? {}, outlines: t.outlines ?? {}, counters: t.counters ?? {} }; }
export const texts = () => T;
