// @ts-check
// Where the kernel defines the function of a step: a lookup in
// data/source-lines.json, the table scripts/kernel-source-lines builds from
// Debian's kernel source packages (docs/engine.md#kernel-source-lines).  The
// table has rows for the releases Debian packages (6.1, 6.12, 7.3 when it was
// built); for the lab's other releases it gives no line numbers, since those
// of another release would be wrong, and points at the release's identifier
// search on Elixir instead.  Pure: no DOM, no allocator logic.

const ELIXIR = 'https://elixir.bootlin.com/linux';

/** @type {{ releases: Record<string, any>, engine_only: string[], untabled: string[] } | null} */
let T = null;

/** Use @t (the parsed source-lines.json), or null for none. */
export function setSourceLines(t) {
  T = t && t.releases ? { releases: t.releases, engine_only: t.engine_only ?? [], untabled: t.untabled ?? [] } : null;
}
export const sourceLinesLoaded = () => T !== null;

/**
 * @typedef {{ kind: 'lines', release: string, version: string, fn: string, name: string,
 *             file: string, start: number, end: number, url: string, text: string }
 *   | { kind: 'lab', fn: string, text: string }
 *   | { kind: 'absent', release: string, version: string, fn: string, text: string }
 *   | { kind: 'untabled', release: string, fn: string, url: string, text: string }} SourceRef
 */

/** One row of the table as a reference. */
function linesRef(release, fn) {
  const r = T?.releases[release];
  const row = r?.functions?.[fn];
  if (!row) return null;
  const name = row.name ?? fn;
  return {
    kind: /** @type {'lines'} */ ('lines'), release, version: r.version, fn, name,
    file: row.file, start: row.start, end: row.end,
    url: `${ELIXIR}/v${r.version}/source/${row.file}#L${row.start}`,
    text: `${row.file}:${row.start}-${row.end} in Linux ${r.version}${name !== fn ? ` (${name})` : ''}`,
  };
}

/**
 * Where function @fn is defined in kernel release @kernel ("X.Y", the
 * session's settings.kernel), as references to show: one for a release,
 * or for a session without a release (a model chosen by hand, @kernel null)
 * one per release of the table that has the function.  Empty when no table
 * is loaded.
 * @param {string} fn
 * @param {string|null|undefined} kernel
 * @returns {SourceRef[]}
 */
export function sourceRefs(fn, kernel) {
  if (!T) return [];
  if (T.engine_only.includes(fn))
    return [{ kind: 'lab', fn, text: 'The lab’s own event: no kernel function has this name.' }];
  if (!kernel) {
    return Object.keys(T.releases)
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
      .map((rel) => linesRef(rel, fn)).filter((x) => x !== null);
  }
  const r = T.releases[kernel];
  if (r) {
    const ref = linesRef(kernel, fn);
    if (ref) return [ref];
    return [{ kind: 'absent', release: kernel, version: r.version, fn, text: `Linux ${r.version} has no function ${fn}.` }];
  }
  const tabled = Object.keys(T.releases).sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).join(', ');
  return [{
    kind: 'untabled', release: kernel, fn,
    url: `${ELIXIR}/v${kernel}/A/ident/${fn}`,
    text: `No line table for Linux ${kernel} (only ${tabled}, from Debian's source packages): search ${fn} in Linux ${kernel}`,
  }];
}
