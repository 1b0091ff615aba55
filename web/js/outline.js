// @ts-check
// The code panel: for each kernel function the engine names, a short
// outline of what it does (data/texts.json, written for this project, not
// kernel code), and which step each event label stands for.  Pure.

import { texts } from './texts.js';

/**
 * The outline of kernel function @fn, and the step that @label stands for
 * (-1 when the label has no step of its own).
 * @param {string} fn
 * @param {string|null} label
 * @returns {{ fn: string, file: string, steps: string[], step: number } | null}
 */
export function outlineFor(fn, label) {
  const o = texts().outlines[fn];
  if (!o) return null;
  const step = label != null && label in o.at ? o.at[label] : -1;
  return { fn, file: o.file, steps: o.steps, step };
}

/** Names of every function with an outline (for tests). */
export const outlined = () => Object.keys(texts().outlines);
