// @ts-check
// The UI's words (data/texts.json): sentence templates, kernel-function
// outlines, counter meanings and the words of predict mode's questions.  main.js loads them before the first
// render; tests load the file.  Pure.

/** @type {{ sentences: Record<string, string>, outlines: Record<string, any>, counters: Record<string, string>, questions: Record<string, any> }} */
let T = { sentences: {}, outlines: {}, counters: {}, questions: {} };

/** Use @t (the parsed texts.json). */
export function setTexts(t) { T = { sentences: t.sentences ?? {}, outlines: t.outlines ?? {}, counters: t.counters ?? {}, questions: t.questions ?? {} }; }
export const texts = () => T;
