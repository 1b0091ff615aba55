// @ts-check
// Where the kernel has the statement of a step: a lookup in
// data/source-lines.json, the table scripts/kernel-source-lines builds from
// Debian's kernel source packages (docs/engine.md#kernel-source-lines).  A
// row gives the function's lines and, inside them, the line of each stat
// counter the function bumps and of the statements some event labels model;
// an event's link points at its label's line, else at its first counter's,
// else at the whole function.  The table has the releases Debian packages
// (6.1, 6.12, 7.2, 7.3); for the lab's other releases it gives the lines of
// the nearest release that has the function, saying so, and Elixir's
// identifier search in the release itself.  Pure: no DOM, no allocator logic.

const ELIXIR = 'https://elixir.bootlin.com/linux';

/** @type {{ releases: Record<string, any>, engine_only: string[], untabled: string[], stand_in: Record<string, string> } | null} */
let T = null;

/** Use @t (the parsed source-lines.json), or null for none. */
export function setSourceLines(t) {
  T = t && t.releases
    ? { releases: t.releases, engine_only: t.engine_only ?? [], untabled: t.untabled ?? [], stand_in: t.stand_in ?? {} }
    : null;
}
export const sourceLinesLoaded = () => T !== null;

/**
 * @typedef {{ kind: 'lines' | 'nearest', release: string, version: string, fn: string, name: string,
 *             file: string, start: number, end: number, line: number, url: string, text: string,
 *             for?: string }
 *   | { kind: 'lab', fn: string, text: string }
 *   | { kind: 'absent', release: string, version: string, fn: string, text: string }
 *   | { kind: 'untabled', release: string, fn: string, url: string, text: string }} SourceRef
 */

/** @typedef {{ label?: string, stats?: Record<string, number> | null }} EventLike */

/**
 * The line of @row (a function's row) that event @e models: its label's
 * anchor, else the first of its counters the function bumps, else the
 * function's anchor for any label ("*"); null for none.
 * @param {any} row @param {EventLike|null|undefined} e
 */
export function statementLine(row, e) {
  if (!e) return null;
  if (e.label && row.label?.[e.label]) return row.label[e.label];
  for (const k of Object.keys(e.stats ?? {})) if (row.stat?.[k]) return row.stat[k];
  return row.label?.['*'] ?? null;
}

/** One row of the table as a reference, at event @e's statement when it has one. */
function linesRef(release, fn, e) {
  const r = T?.releases[release];
  const row = r?.functions?.[fn];
  if (!row) return null;
  const name = row.name ?? fn;
  const line = statementLine(row, e);
  return {
    kind: /** @type {'lines'} */ ('lines'), release, version: r.version, fn, name,
    file: row.file, start: row.start, end: row.end, line: line ?? row.start,
    url: `${ELIXIR}/v${r.version}/source/${row.file}#L${line ?? row.start}`,
    text: line
      ? `${row.file}:${line} in ${name}() (${row.start}-${row.end}), Linux ${r.version}`
      : `${row.file}:${row.start}-${row.end} in Linux ${r.version}${name !== fn ? ` (${name})` : ''}`,
  };
}

/** A release's place in the order of releases (6.19 is followed by 7.0). */
const order = (rel) => { const [a, b] = rel.split('.').map(Number); return a * 20 + b; };
const byVersion = (a, b) => a.localeCompare(b, 'en', { numeric: true });

/** The tabled release nearest @kernel that has @fn (the older one of two as near), or null. */
export function nearestRelease(fn, kernel) {
  const have = Object.keys(T?.releases ?? {}).filter((r) => T?.releases[r].functions?.[fn]).sort(byVersion);
  let best = null;
  for (const r of have) if (best === null || Math.abs(order(r) - order(kernel)) < Math.abs(order(best) - order(kernel))) best = r;
  return best;
}

/**
 * Where kernel release @kernel ("X.Y", the session's settings.kernel) has
 * the statement event @e models in function @fn, as references to show:
 * one for a tabled release; for another release the nearest tabled
 * release's lines, labelled so, and the release's identifier search; for a
 * session without a release (a model chosen by hand, @kernel null) one per
 * release of the table that has the function.  Empty when no table is
 * loaded.
 * @param {string} fn
 * @param {string|null|undefined} kernel
 * @param {EventLike|null} [e] the event (its label and stats)
 * @returns {SourceRef[]}
 */
export function sourceRefs(fn, kernel, e = null) {
  if (!T) return [];
  const refs = ownRefs(fn, kernel, e);
  // the lab's own event, or one of a change in no release: the kernel code
  // that does what it stands for
  const standIn = T.stand_in[fn];
  if (!standIn || refs.some((r) => r.kind === 'lines')) return refs;
  return [...refs, ...ownRefs(standIn, kernel, e).filter((r) => r.kind === 'lines' || r.kind === 'nearest')
    .map((r) => ({ ...r, text: `${r.text}: what ${fn} stands for` }))];
}

/** sourceRefs() of @fn itself. */
function ownRefs(fn, kernel, e) {
  if (!T) return [];
  if (T.engine_only.includes(fn))
    return [{ kind: 'lab', fn, text: 'The lab’s own event: no kernel function has this name.' }];
  if (!kernel) {
    return Object.keys(T.releases).sort(byVersion)
      .map((rel) => linesRef(rel, fn, e)).filter((x) => x !== null);
  }
  const r = T.releases[kernel];
  if (r) {
    const ref = linesRef(kernel, fn, e);
    if (ref) return [ref];
    return [{ kind: 'absent', release: kernel, version: r.version, fn, text: `Linux ${r.version} has no function ${fn}.` }];
  }
  const tabled = Object.keys(T.releases).sort(byVersion).join(', ');
  /** @type {SourceRef} */
  const search = {
    kind: 'untabled', release: kernel, fn,
    url: `${ELIXIR}/v${kernel}/A/ident/${fn}`,
    text: `No line table for Linux ${kernel} (only ${tabled}, from Debian's source packages): search ${fn} in Linux ${kernel}`,
  };
  const near = nearestRelease(fn, kernel);
  const ref = near ? linesRef(near, fn, e) : null;
  if (!ref) return [search];
  return [
    { ...ref, kind: 'nearest', for: kernel, text: `${ref.text}, the nearest release with a line table (not ${kernel})` },
    { ...search, text: `search ${fn} in Linux ${kernel}` },
  ];
}
