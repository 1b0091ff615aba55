// @ts-check
// Words, numbers, colours and the legend: everything the views show as
// text.  The sentences themselves are templates in data/texts.json.
// Pure: no DOM, so node can test it.

import { texts } from './texts.js';
import { stepWords } from './race.js';

/** @typedef {import('./types.js').Event} Event */
/** @typedef {import('./types.js').Place} Place */

// ---- addresses ------------------------------------------------------------

/** The last @n hex digits of an address, for labels: "…0ec0". */
export function shortAddr(addr, n = 5) {
  if (typeof addr !== 'string') return String(addr);
  return '…' + addr.slice(-n);
}

// The engine names each cache's slabs S0, S1, ... in order of creation (the
// state's slabs[].name).  Events name slabs by address; this table, filled
// from every state shown, gives their names (a later state's win when an
// address was reused).
const slabNames = new Map();

/** Learn the slab names of state @st (its slabs[].name by address). */
export function learnSlabNames(st) {
  for (const sl of st?.slabs ?? []) if (sl.name) slabNames.set(sl.addr, sl.name);
}

/** A slab's name as the engine gave it ("S3"), or its short address when unknown. */
export function slabName(addr) {
  return slabNames.get(addr) ?? shortAddr(addr);
}

// The names the scenario gave objects ("o1", "x[3]") come with each state
// answer, by address, as they stand at that position (its "names": a name
// stays with its address until the address is handed out again), and for
// a name that reuses a freed object, that object's first name ("same_as").

/**
 * An object's label: its name in @names ({addr: name}) when it has one, else
 * its short address; "o1 (the same object as o0)" when @same ({addr: first
 * name}) says a new allocation reuses it.
 */
export function objName(addr, names, same) {
  const name = names?.[addr];
  if (!name) return shortAddr(addr);
  return same?.[addr] ? `${name} (the same object as ${same[addr]})` : name;
}

/** The low 48 bits of a hex address as a number (exact). */
export function lo48(addr) {
  return parseInt(addr.length > 14 ? addr.slice(-12) : addr.slice(2), 16);
}

/** @a plus @off bytes, as the same kind of hex string. */
export function addrAdd(a, off) {
  const head = a.length > 14 ? a.slice(0, -12) : '0x';
  const v = lo48(a) + off;
  return head + v.toString(16).padStart(head === '0x' ? 1 : 12, '0');
}

// ---- numbers ----------------------------------------------------------------

/** Change from @a to @b in the cover-letter style: "+12.5%", "-100.0%", "+0.04%", "0.0%", "new" (0 in the baseline). */
export function fmtChange(a, b, pct) {
  const p = pct !== undefined ? pct : (a ? ((b - a) / a) * 100 : null);
  if (p == null) return a === b ? '0.0%' : 'new'; // as slublab compare says it
  // as many decimals as it takes not to read 0.0% when the values differ (19,192 -> 19,200: +0.04%)
  let digits = 1;
  while (p !== 0 && digits < 6 && Math.abs(p) < 0.5 * 10 ** -digits) digits++;
  return (p > 0 ? '+' : '') + p.toFixed(digits) + '%';
}

/**
 * /proc/slabinfo (version 2.1) of a state answer, as the server's export writes it
 * (server/kfiles/slabinfo.c): an offline copy makes it in the page.
 * @param {{ caches: any[] }} state
 */
export function slabinfoText(state) {
  const pad = (v, n) => String(v).padStart(n);
  const lines = ['slabinfo - version: 2.1',
    '# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>'];
  for (const c of [...state.caches].reverse()) {
    if (!c.alive) continue;
    lines.push(`${c.name.padEnd(17)} ${pad(c.objects, 6)} ${pad(c.total_objects, 6)} ${pad(c.slab_size, 6)} ${pad(c.objs_per_slab, 4)} ${pad(2 ** c.order, 4)}`
      + ` : tunables ${pad(0, 4)} ${pad(0, 4)} ${pad(0, 4)} : slabdata ${pad(c.slabs, 6)} ${pad(c.slabs, 6)} ${pad(0, 6)}`);
  }
  return lines.join('\n') + '\n';
}

export function plural(n, one, many = one + 's') {
  return `${n} ${n === 1 ? one : many}`;
}

// ---- CSV --------------------------------------------------------------------

function csvCell(v) {
  const s = v == null ? '' : String(v);
  return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

/** Rows (arrays) to CSV text with a final newline. */
export function toCSV(rows) {
  return rows.map((r) => r.map(csvCell).join(',')).join('\n') + '\n';
}

// ---- colour -----------------------------------------------------------------

// Object states: the codes of model.js, each with a colour from a
// colour-blind-safe set (Okabe-Ito and Tol, darkened for >= 3:1 on white)
// and a glyph, so that no state is told by colour alone.
export const STATES = [
  { key: 'free', name: 'free', desc: 'free, on its slab\'s freelist', color: '#ffffff', ink: '#4d4d4d', glyph: 'hollow' },
  { key: 'fresh', name: 'free, unlinked', desc: 'free in a fresh slab, not linked into a freelist yet (DEFERRED_FREELIST)', color: '#ffffff', ink: '#4d4d4d', glyph: 'corner' },
  { key: 'user', name: 'allocated', desc: 'allocated: held by a caller', color: '#0b5fa5', ink: '#0b5fa5', glyph: 'solid' },
  { key: 'main', name: 'main sheaf', desc: 'in a CPU\'s main sheaf', color: '#c0510a', ink: '#c0510a', glyph: 'bar' },
  { key: 'spare', name: 'spare sheaf', desc: 'in a CPU\'s spare sheaf', color: '#8a5a00', ink: '#8a5a00', glyph: 'stripe' },
  { key: 'rcu_free', name: 'rcu_free sheaf', desc: 'in a CPU\'s rcu_free sheaf', color: '#882255', ink: '#882255', glyph: 'ring' },
  { key: 'barn', name: 'barn sheaf', desc: 'in a sheaf parked in a barn', color: '#117733', ink: '#117733', glyph: 'dot' },
  { key: 'prefill', name: 'prefilled sheaf', desc: 'in a prefilled sheaf a caller holds', color: '#5f4b8b', ink: '#5f4b8b', glyph: 'vbar' },
  { key: 'inflight', name: 'in flight', desc: 'held by the operation in progress', color: '#222222', ink: '#222222', glyph: 'diamond' },
  { key: 'rcu_pending', name: 'pending RCU', desc: 'waiting for an RCU grace period', color: '#aa3377', ink: '#aa3377', glyph: 'cross' },
  { key: 'cpu_freelist', name: 'lockless freelist', desc: 'on a CPU\'s lockless freelist (legacy model: free, but counted in its cpu slab\'s inuse)', color: '#00707a', ink: '#00707a', glyph: 'tri' },
  { key: 'other', name: 'elsewhere', desc: 'in a place this UI has no colour for', color: '#666666', ink: '#666666', glyph: 'question' },
];

export const RED_ZONE = '#b2182b';

// ---- places -----------------------------------------------------------------

/**
 * A place in words: "CPU 0's main sheaf", "node 1's partial list".
 * @param {Place} p
 * @param {number} [cpu] the event's CPU, for places that have none
 */
export function placeName(p, cpu) {
  if (!p) return 'nowhere';
  const c = p.cpu ?? cpu;
  const n = p.node;
  switch (p.type) {
    case 'none': return 'nowhere';
    case 'user': return c != null ? `the caller on CPU ${c}` : 'the caller';
    case 'slab': return p.slab ? `slab ${slabName(p.slab)}` : 'its slab';
    case 'main': return `CPU ${c}'s main sheaf`;
    case 'spare': return `CPU ${c}'s spare sheaf`;
    case 'rcu_free': return `CPU ${c}'s rcu_free sheaf`;
    case 'barn_full': return `node ${n}'s barn (full list)`;
    case 'barn_empty': return `node ${n}'s barn (empty list)`;
    case 'barn_partial': return `node ${n}'s barn (partial sheaf)`;
    case 'node_partial': return `node ${n}'s partial list`;
    case 'node_full': return `node ${n}'s full list`;
    case 'full': return 'no list (full)';
    case 'pages': return n != null ? `node ${n}'s page allocator` : 'the page allocator';
    case 'inflight': return p.sheaf ? `sheaf #${p.sheaf} (in flight)` : 'the operation in progress';
    case 'rcu_pending': return 'the RCU queue';
    case 'prefill': return 'a prefilled sheaf';
    case 'cpu_slab': return `CPU ${c}'s cpu slab`;
    case 'cpu_freelist': return `CPU ${c}'s lockless freelist`;
    case 'cpu_partial': return `CPU ${c}'s partial list`;
    default: return String(p.type).replace(/_/g, ' ');
  }
}

// ---- the API call an event belongs to ------------------------------------

const CALLS = [
  [/^(alloc_from_pcs|__pcs_replace_empty_main|barn_replace_empty_sheaf|___slab_alloc|get_from_partial_node|__slab_alloc_node)$/, 'kmem_cache_alloc'],
  [/^(free_to_pcs|__pcs_replace_full_main|barn_replace_full_sheaf|slab_free|__pcs_install_empty_sheaf|do_slab_free|__slab_free)$/, 'kmem_cache_free'],
  [/^(alloc_from_pcs_bulk|__kmem_cache_alloc_bulk|kmem_cache_alloc_bulk)$/, 'kmem_cache_alloc_bulk'],
  [/^(free_to_pcs_bulk|kmem_cache_free_bulk)$/, 'kmem_cache_free_bulk'],
  [/^(barn_shrink|__kmem_cache_do_shrink)$/, 'kmem_cache_shrink'],
  [/^(pcs_flush_all|flush_slab|put_partials)$/, 'flush_all'],
  [/^__kmem_cache_shutdown$/, 'kmem_cache_destroy'],
  [/^(__kfree_rcu_sheaf|kvfree_call_rcu)$/, 'kfree_rcu'],
  [/^(rcu_grace_period|rcu_free_sheaf|rcu_free_sheaf_nobarn|rcu_free_slab|kvfree_rcu_bulk)$/, 'RCU grace period'],
  [/^flush_rcu_sheaves_on_cache$/, 'kvfree_rcu_barrier'],
];

/**
 * The API call an operation made, from its events (first one first).
 * @param {Event[]} events events of one operation, in order
 * @param {(id: number) => string} [cacheName]
 */
export function opCall(events, cacheName) {
  if (!events.length) return '';
  const fns = new Set(events.map((e) => e.fn));
  if (fns.has('barn_shrink') || fns.has('__kmem_cache_do_shrink')) return 'kmem_cache_shrink';
  for (const e of events) {
    if (['kmem_cache_create', 'kmem_cache_prefill_sheaf', 'kmem_cache_alloc_from_sheaf',
      'kmem_cache_return_sheaf', 'kmem_cache_free', 'kfree'].includes(e.fn)) return e.fn;
    for (const [re, call] of CALLS) {
      if (re.test(e.fn)) {
        const name = cacheName && e.cache >= 0 ? cacheName(e.cache) : '';
        if (name.startsWith('kmalloc')) {
          if (call === 'kmem_cache_alloc') return 'kmalloc';
          if (call === 'kmem_cache_free') return 'kfree';
        }
        return call;
      }
    }
  }
  return '';
}

// ---- narration ----------------------------------------------------------------

/**
 * An event's moves in words, runs of the same kind between the same two
 * places kept together in the event's order: [{ head: "8 objects: slab S0 →
 * sheaf #1 (in flight)", items: ["…0e00", "…0800", ...] }].  Objects go by
 * their names (and first names, @same), slabs S0, sheaves #1.
 * @param {Event} e @param {Record<string, string>} [names] @param {Record<string, string>} [same]
 */
export function moveGroups(e, names, same) {
  /** @type {{ head: string, items: string[], key: string }[]} */
  const out = [];
  for (const m of e?.moves ?? []) {
    const from = placeName(m.from, e.cpu), to = placeName(m.to, e.cpu);
    const key = `${m.kind}|${from}|${to}`;
    const item = m.kind === 'object' ? objName(m.id, names, same) : m.kind === 'slab' ? slabName(m.id) : m.kind === 'sheaf' ? `#${m.id}` : String(m.id);
    const last = out[out.length - 1];
    if (last?.key === key) { last.items.push(item); continue; }
    out.push({ key, items: [item], head: `${from} → ${to}` });
  }
  return out.map((g) => ({ head: `${plural(g.items.length, g.key.split('|')[0], g.key.startsWith('sheaf|') ? 'sheaves' : undefined)}: ${g.head}`, items: g.items }));
}

/** @param {Event} e @param {{ names?: Record<string, string> }} ctx */
function facts(e, ctx) {
  const objs = e.moves.filter((m) => m.kind === 'object');
  const slabs = e.moves.filter((m) => m.kind === 'slab');
  const sheaves = e.moves.filter((m) => m.kind === 'sheaf');
  const objSlab = objs.map((m) => m.from.slab || m.to.slab).find(Boolean);
  const slab = slabs[0] ? slabName(slabs[0].id) : objSlab ? slabName(objSlab) : 'the slab';
  const st = (k) => (e.stats && e.stats[k]) || 0;
  return { objs, slabs, sheaves, n: objs.length, slab, st, node: e.node >= 0 ? e.node : 0,
    obj: objs[0] ? objName(objs[0].id, ctx.names) : 'the object', sheaf: sheaves[0] ? `#${sheaves[0].id}` : '' };
}

const to = (e, type) => e.moves.some((m) => m.to.type === type);

/** Whether condition @c of a [?c|then|else] holds. */
function cond(c, e, f, ctx) {
  if (c.startsWith('to:')) return to(e, c.slice(3));
  if (c === 'toSheaf') return f.objs.some((m) => m.to.sheaf);
  if (c === 'oneSlab') return f.slabs.length === 1;
  if (c === 'one') return f.n === 1;
  if (c === 'spareEmpty') return ctx.spareEmpty !== false;
  return false;
}

/** A field of the page allocator decision an event carries (docs/events.md), or null. */
function pageFact(p, k) {
  if (!p) return null;
  const v = k === 'gfp' ? p.gfp_names : k === 'flags' ? p.alloc_flags_names : p[k];
  return v === undefined ? null : v;
}

/** The value of placeholder @k, or null when unknown. */
function value(k, e, f, ctx) {
  if (k.startsWith('stat:')) return f.st(k.slice(5));
  if (k.startsWith('page:')) return pageFact(e.page, k.slice(5));
  switch (k) {
    case 'n': return f.n;
    case 'slabs': return f.slabs.length;
    case 'obj': return f.obj;
    case 'slab': return f.slab;
    case 'node': return f.node;
    case 'sheaf': return f.sheaf;
    case 'cache': return ctx.cacheName ?? '';
    case 'report': return firstLine(e.report);
    case 'pages': return ctx.pagesOf && f.slabs[0] ? ctx.pagesOf(f.slabs[0].id) : null;
    default: return null;
  }
}

/** Fill a sentence template of texts.json. */
export function fillTemplate(tpl, e, ctx = {}) {
  const f = facts(e, ctx);
  return tpl
    .replace(/\[\?([^|\]]+)\|([^|\]]*)\|([^\]]*)\]/g, (_, c, a, b) => (cond(c, e, f, ctx) ? a : b))
    .replace(/\{([a-z_:]+)(?:\|([^|}]+)(?:\|([^}]+))?)?\}/g, (_, k, one, many) => {
      const v = value(k, e, f, ctx);
      if (one) return v == null ? many ?? `${one}s` : plural(v, one, many);
      return v == null ? '' : String(v);
    });
}

/** The report's first line of words (a SLUB report opens with a rule of '='). */
function firstLine(s) {
  const line = s ? String(s).split('\n').find((l) => /[A-Za-z]/.test(l)) : null;
  return line ? line.trim() : 'SLUB reports misuse';
}

/** A generic sentence from the moves, for pairs without a template. */
function generic(e, cpu) {
  const parts = [];
  const groups = new Map();
  for (const m of e.moves) {
    const k = `${m.kind}|${placeName(m.from, cpu)}|${placeName(m.to, cpu)}`;
    groups.set(k, (groups.get(k) || 0) + 1);
  }
  for (const [k, n] of groups) {
    const [kind, a, b] = k.split('|');
    parts.push(`${plural(n, kind)} ${n === 1 ? 'moves' : 'move'} from ${a} to ${b}`);
  }
  const what = `${e.fn}${e.label ? ` (${e.label})` : ''}`;
  return parts.length ? `${what}: ${parts.join('; ')}` : what;
}

/**
 * One plain sentence for event @e:
 * "CPU 1 kmem_cache_free: the main sheaf is full, so it swaps with the empty spare."
 * @param {Event} e
 * @param {{ call?: string, cacheName?: string, spareEmpty?: boolean, pagesOf?: (addr: string) => number, names?: Record<string, string>, same?: Record<string, string>,
 *   slabName?: (addr: string) => string|null, prior?: Event[] }} [ctx] prior: a race step's op's events (what its context read before)
 */
export function narrate(e, ctx = {}) {
  if (!e) return 'The start: nothing has happened yet.';
  // a step of a race (docs/events.md): which context, what it read and wrote
  if (e.step) {
    const said = `${e.cpu >= 0 ? `CPU ${e.cpu}, ` : ''}${stepWords(e, { names: ctx.names, slabName: ctx.slabName, prior: ctx.prior })}.`;
    return e.report ? `${said} ${e.report.trim().replace(/([^.])$/, '$1.')}` : said;
  }
  const t = texts().sentences[`${e.fn}/${e.label}`];
  let body = t ? fillTemplate(t, e, ctx) : generic(e, e.cpu);
  // inside a race, the context whose step runs this (docs/events.md)
  const who = e.cpu >= 0 ? `CPU ${e.cpu}${e.ctx ? ` (${e.ctx})` : ''}` : '';
  let call = ctx.call ? ` ${ctx.call}` : '';
  body = body.replace(/\s+/g, ' ').trim();
  // among several caches the sentence names its own: a flush or a barn on a real trace says which
  const cache = ctx.nameCache && ctx.cacheName && !new RegExp(`\\b${ctx.cacheName.replace(/[^\w]/g, '\\$&')}\\b`).test(`${call} ${body}`) ? ctx.cacheName : '';
  if (cache) body = `in ${cache}, ${body}`;
  // one object, one identity: a name that reuses a freed object says whose it was
  const first = e.moves.find((m) => m.kind === 'object')?.id;
  if (first && ctx.names?.[first] && ctx.same?.[first]) body += `; ${ctx.names[first]} is the same object as ${ctx.same[first]}`;
  return `${who}${call}${who || call ? ': ' : ''}${body}.`;
}

/**
 * The sentence of the player's step (the narration line): narrate() of the
 * event that led to it, with the call it belongs to, its cache's name,
 * whether the spare sheaf was empty just before, and slab sizes in pages.
 * @param {{ at: number, cur: any, prev: any }} m the player's state
 * @param {(seq: number) => Event[]} opEvents the loaded events of the operation of event @seq
 */
export function stepSentence(m, opEvents) {
  const e = m.cur?.event;
  if (!e) return narrate(null);
  const cacheName = (id) => m.cur.state.caches.find((c) => c.id === id)?.name ?? '';
  let spareEmpty;
  if (m.prev && m.prev.at === m.at - 1) {
    const c = m.prev.state.caches.find((x) => x.id === e.cache);
    spareEmpty = !c?.cpus?.[e.cpu]?.spare?.size;
  }
  const pagesOf = (a) => { const sl = m.cur.state.slabs.find((x) => x.addr === a); return sl ? 2 ** sl.order : null; };
  const slabName = (a) => m.cur.state.slabs.find((x) => x.addr === a)?.name ?? null;
  return narrate(e, { call: opCall(opEvents(e.seq), cacheName), cacheName: cacheName(e.cache), nameCache: m.cur.state.caches.length > 1, spareEmpty, pagesOf, names: m.cur.names, same: m.cur.same_as,
    slabName, prior: e.step ? opEvents(e.seq) : undefined });
}

/**
 * The banner's line about an open snapshot: its title, step and note, and
 * a warning when it is damaged or another engine version made it.
 * @param {{ title?: string, position: number, warning?: string, engine?: { stored?: string, current?: string } }} sn
 * @param {string} id
 * @param {string} note
 */
export function snapshotLine(sn, id, note) {
  const warn = sn.warning || (sn.engine?.stored && sn.engine.stored !== sn.engine.current ? `made with engine ${sn.engine.stored}` : '');
  return { text: `Snapshot “${sn.title || id}” (step ${sn.position})${note ? ': ' + note : ''}${warn ? ' · Warning: ' + warn : ''}`, warn: !!warn };
}

/** Whether a fn/label pair has its own sentence (for tests). */
export function hasSentence(fn, label) {
  return `${fn}/${label}` in texts().sentences;
}

/** The counter deltas of an event: "alloc_fastpath +1, sheaf_refill +60". */
export function statsText(stats) {
  const ks = Object.keys(stats || {});
  return ks.length ? ks.map((k) => `${k} ${stats[k] >= 0 ? '+' : ''}${stats[k]}`).join(', ') : 'no counter changed';
}

/**
 * The operation step @at belongs to, counted from 1 like the steps: the
 * operation of the event that led there (event seq at-1), or 0 at the
 * start.  The header, the Explain tab and docs/teaching.md all count so:
 * "op 2 / 2" and "operation 2 of 2" are the same operation.
 * @param {{ op: number }|null|undefined} e the event that led to the step
 */
export function opNumber(e) {
  return e ? e.op + 1 : 0;
}

/** The header's position: "step 11 / 11 · op 2 / 2". */
export function positionText(at, end, e, ops) {
  return `step ${at} / ${end} · op ${opNumber(e)} / ${ops}`;
}

/**
 * The Explain tab's line under the sentence: "Step 11, in operation 2 of 2:
 * alloc_from_pcs (fastpath); alloc_fastpath +1."
 */
export function stepDetail(at, e, ops) {
  return `Step ${at}, in operation ${opNumber(e)} of ${ops}: ${e.fn}${e.label ? ` (${e.label})` : ''}; ${statsText(e.stats)}.`;
}

/** The scrubber's aria-valuetext: "step 12 of 240: alloc_from_pcs fastpath on CPU 0". */
export function stepText(at, end, e) {
  const base = `step ${at} of ${end}`;
  if (!e) return `${base}: the start`;
  return `${base}: ${e.fn}${e.label ? ' ' + e.label : ''}${e.cpu >= 0 ? ' on CPU ' + e.cpu : ''}`;
}

/** Hex dump lines of @hex (a string of hex digit pairs) starting at @base. */
export function hexLines(hex, base, width = 16) {
  const out = [];
  for (let off = 0; off * 2 < hex.length; off += width) {
    const bytes = [];
    for (let i = 0; i < width && (off + i) * 2 < hex.length; i++) bytes.push(hex.substr((off + i) * 2, 2));
    out.push({ off, addr: addrAdd(base, off), bytes });
  }
  return out;
}

/** "free_fastpath 56 C0=56 C1=0" as the sysfs files print per-CPU counters. */
export function sysfsLine(name, total, perCpu) {
  const cpus = perCpu.map((v, i) => (v ? ` C${i}=${v}` : '')).join('');
  return `${total}${cpus}`;
}
