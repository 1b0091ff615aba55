// @ts-check
// The race lab's model (docs/scenario-format.md, "Races"): the steps of a
// race op, taken from the events that carry `step` (docs/events.md), laid
// out as one lane per context in the order they ran; the shared words
// (c->freelist, c->tid, slab->freelist, pcs->lock, ...) as they stand at
// the player's position, with what the current step read and wrote; and
// the schedule as tokens the student reorders.  Pure: no DOM, no fetch
// (views/race.js draws it, tests/js/race.test.mjs checks it).  Nothing
// here decides what the allocator does: lanes, values and counters are
// the engine's events regrouped; a new order is run by the engine.

/** @typedef {import('./types.js').Event} Event */
/**
 * A schedule token: `A` one step, `A*` to the end, `A>1` migrate to CPU 1, `I!` arrival.
 * @typedef {{ text: string, ctx: string, kind: 'step'|'run'|'migrate'|'arrive'|'bad', cpu?: number }} Token
 */
/** @typedef {{ id: string, cpu?: number, kind?: string, ops?: any[] }} RaceContext */
/** @typedef {{ contexts?: RaceContext[], schedule?: string, at?: number }} RaceDef */

/** The shared words in the order the lab lists them (the names docs/events.md gives). */
export const WORDS = ['c->tid', 'c->freelist', 'c->slab', 'object->next', 'slab->freelist', 'slab->counters',
  'pcs->lock', 'barn->lock', 'n->list_lock'];

/** The counters a lost race bumps. */
export const RACE_COUNTERS = ['cmpxchg_double_cpu_fail', 'cmpxchg_double_fail'];

/** Step kinds that show a context losing: a failed compare, a lock found taken. */
export const LOST = new Set(['cmpxchg_fail', 'trylock_fail', 'spin']);

/** @param {string} t @returns {Token} */
function token(t) {
  const m = /^([A-Za-z][A-Za-z0-9_]*)(\*|!|>(\d+))?$/.exec(t);
  if (!m) return { text: t, ctx: '', kind: 'bad' };
  if (m[2] === '*') return { text: t, ctx: m[1], kind: 'run' };
  if (m[2] === '!') return { text: t, ctx: m[1], kind: 'arrive' };
  if (m[3] !== undefined) return { text: t, ctx: m[1], kind: 'migrate', cpu: Number(m[3]) };
  return { text: t, ctx: m[1], kind: 'step' };
}

/**
 * The tokens of schedule @text, split at whitespace.  A token the grammar
 * does not know is kept as kind 'bad': the engine says why it refuses it.
 * @param {string} text
 * @returns {Token[]}
 */
export function parseSchedule(text) {
  return String(text ?? '').split(/\s+/).filter(Boolean).map(token);
}

/** @param {Token[]} tokens */
export function scheduleText(tokens) {
  return tokens.map((t) => t.text).join(' ');
}

/**
 * @list with its element at @from moved to index @to (clamped); a new array.
 * @template T
 * @param {T[]} list
 * @param {number} from
 * @param {number} to
 * @returns {T[]}
 */
export function moveItem(list, from, to) {
  const out = list.slice();
  if (from < 0 || from >= out.length) return out;
  const [x] = out.splice(from, 1);
  out.splice(Math.max(0, Math.min(out.length, to)), 0, x);
  return out;
}

/**
 * The races among @events (any iterable of events): the step events of
 * each race op, grouped by op, in seq order.  A step run whole by the
 * engine's ordinary functions (a slow path) is followed by their events,
 * which carry the context but no step: `follows` maps each such event's
 * seq to the seq of the step it belongs to.
 * @param {Iterable<Event>} events
 * @returns {{ op: number, steps: Event[], ctxs: string[], follows: Map<number, number> }[]}
 */
export function findRaces(events) {
  /** @type {Map<number, Event[]>} */
  const byOp = new Map();
  /** @type {Event[]} */
  const others = [];
  for (const e of events) {
    if (!e?.step) {
      if (e?.ctx) others.push(e);
      continue;
    }
    if (!byOp.has(e.op)) byOp.set(e.op, []);
    byOp.get(e.op)?.push(e);
  }
  const races = [...byOp.entries()].sort((a, b) => a[0] - b[0]).map(([op, steps]) => {
    steps.sort((a, b) => a.seq - b.seq);
    const ctxs = [];
    for (const e of steps) if (!ctxs.includes(e.step.ctx)) ctxs.push(e.step.ctx);
    return { op, steps, ctxs, follows: new Map() };
  });
  for (const e of others) {
    const r = races.find((x) => x.op === e.op);
    const step = r?.steps.findLast((x) => x.seq < e.seq && x.step.ctx === e.ctx);
    if (r && step) r.follows.set(e.seq, step.seq);
  }
  return races;
}

/** Does any of @events carry a step? */
export function hasRace(events) {
  for (const e of events) if (e?.step) return true;
  return false;
}

/**
 * The race to show at position @at (events seq < @at have run): the one
 * whose steps hold the current event, else the last one begun, else the
 * first.  Its index too (the k-th race op of the scenario).
 * @template {{ steps: Event[] }} R
 * @param {R[]} races
 * @param {number} at
 * @returns {{ race: R, index: number }|null}
 */
export function raceAt(races, at) {
  if (!races.length) return null;
  let k = 0;
  for (let i = 0; i < races.length; i++) if (races[i].steps[0].seq < at) k = i;
  return { race: races[k], index: k };
}

/**
 * The @k-th race op of scenario @sc (its ops in order, a `repeat`'s body
 * included once), or null.
 * @param {any} sc
 * @param {number} k
 * @returns {any|null}
 */
export function raceOpOf(sc, k) {
  let n = 0;
  /** @param {any[]} ops */
  const walk = (ops) => {
    for (const op of ops ?? []) {
      if (op?.op === 'race') { if (n++ === k) return op; } else if (Array.isArray(op?.ops)) {
        const r = walk(op.ops);
        if (r) return r;
      }
    }
    return null;
  };
  return walk(sc?.ops);
}

/**
 * A copy of scenario @sc whose @k-th race op runs schedule @schedule.
 * Throws when @sc has no such race op.
 * @param {any} sc
 * @param {number} k
 * @param {string} schedule
 */
export function withSchedule(sc, k, schedule) {
  const copy = structuredClone(sc);
  const op = raceOpOf(copy, k);
  if (!op) throw new Error(`the scenario has no race number ${k + 1}`);
  op.schedule = schedule;
  return copy;
}

/**
 * How the tokens of @tokens cover the steps that ran (@steps, in order):
 * for each token the number of steps it ran, and the steps left over
 * after the schedule's end (they run in context order, docs/scenario-format.md).
 * null when the steps do not follow the tokens (a schedule of another run).
 * @param {Token[]} tokens
 * @param {Event[]} steps
 * @returns {{ counts: number[], rest: { ctx: string, count: number }[] }|null}
 */
export function coverage(tokens, steps) {
  let i = 0;
  const counts = [];
  for (const t of tokens) {
    if (t.kind === 'bad' || steps[i]?.step.ctx !== t.ctx) return null;
    let n = 1;
    if (t.kind === 'run') while (steps[i + n]?.step.ctx === t.ctx) n++;
    counts.push(n);
    i += n;
  }
  const rest = [];
  for (; i < steps.length; i++) {
    const c = steps[i].step.ctx;
    if (rest.length && rest[rest.length - 1].ctx === c) rest[rest.length - 1].count++;
    else rest.push({ ctx: c, count: 1 });
  }
  return { counts, rest };
}

/**
 * A word's key: the word and where it is (cpu, node, slab, object address).
 * @param {{ word: string, cpu?: number, node?: number, slab?: string, addr?: string }} w
 */
export function wordKey(w) {
  return [w.word, w.cpu ?? '', w.node ?? '', w.slab ?? '', w.addr ?? ''].join('|');
}

/** The same word anywhere: its name, slab and object, whatever the CPU (a migrated task compares another CPU's). */
const wordAnyCpu = (w) => [w.word, w.node ?? '', w.slab ?? '', w.addr ?? ''].join('|');

/** A short name for address @a: the scenario's name for it, else its last five digits. */
export function shortValue(a, names = {}) {
  if (typeof a !== 'string') return String(a ?? '');
  if (names[a]) return names[a];
  return /^0x[0-9a-f]{9,}$/.test(a) ? `…${a.slice(-5)}` : a;
}

/**
 * Value @v of word @w in words: a slab (c->slab) by its name, a tid or a
 * lock as it is, an object by the scenario's name for it.
 * @param {{ word: string }} w
 * @param {any} v
 * @param {{ names?: Record<string, string>, slabName?: (addr: string) => string|null }} [o]
 */
export function valueName(w, v, o = {}) {
  if (w.word === 'c->slab' && v === '0x0') return 'NULL';
  if (w.word === 'c->slab' && typeof v === 'string') return o.slabName?.(v) ?? shortValue(v);
  if (w.word === 'c->tid' || w.word === 'slab->counters' || w.word.endsWith('lock') || w.word === 'cpu') return String(v ?? '');
  if (v === '0x0') return 'NULL';
  return shortValue(v, o.names);
}

/**
 * A word as the lab names it: "c->tid (CPU 0)", "object->next of o1",
 * "slab->freelist of S0".
 * @param {{ word: string, cpu?: number, node?: number, slab?: string, addr?: string }} w
 * @param {{ names?: Record<string, string>, slabName?: (addr: string) => string|null }} [o]
 */
export function wordName(w, o = {}) {
  const where = [];
  if (w.cpu !== undefined && w.cpu !== null) where.push(`CPU ${w.cpu}`);
  if (w.node !== undefined && w.node !== null) where.push(`node ${w.node}`);
  let s = w.word;
  if (w.addr) s += ` of ${shortValue(w.addr, o.names)}`;
  if (w.slab) s += ` of ${o.slabName?.(w.slab) ?? shortValue(w.slab)}`;
  return where.length ? `${s} (${where.join(', ')})` : s;
}

/** @param {string} id @param {RaceContext|undefined} c */
export function contextName(id, c) {
  if (!c) return id;
  const kind = c.kind === 'irq' ? 'interrupt' : c.kind ?? '';
  const cpu = c.cpu !== undefined && c.cpu !== null ? `CPU ${c.cpu}` : '';
  return kind || cpu ? `${id} (${kind}${kind && cpu ? ' on ' : ''}${cpu})` : id;
}

/**
 * Everything the race view draws at position @at.
 * @param {{ op: number, steps: Event[], ctxs: string[], follows?: Map<number, number> }} race
 * @param {RaceDef|null} def the race op (its contexts and schedule), when known
 * @param {number} at
 */
export function raceState(race, def, at) {
  const steps = race.steps;
  const curIdx = steps.findLastIndex((e) => e.seq < at);
  const cur = curIdx >= 0 ? steps[curIdx] : null;
  // the event that led here is the step, or one of the events it ran whole
  const current = cur && (cur.seq === at - 1 || race.follows?.get(at - 1) === cur.seq) ? cur : null;
  /** @type {Map<string, RaceContext>} */
  const defs = new Map((def?.contexts ?? []).map((c) => [c.id, c]));
  const ids = [...(def?.contexts ?? []).map((c) => c.id), ...race.ctxs.filter((c) => !defs.has(c))];

  // words: their value before the race (the first step that touched each),
  // then every step up to the position
  /** @type {Map<string, any>} */
  const words = new Map();
  const touch = (w) => {
    const k = wordKey(w);
    if (!words.has(k)) words.set(k, { key: k, word: w.word, cpu: w.cpu, node: w.node, slab: w.slab, addr: w.addr,
      value: w.old ?? w.value ?? null, lit: null, old: null, by: null, last: null });
    return words.get(k);
  };
  for (const e of steps) for (const w of [...(e.step.reads ?? []), ...(e.step.writes ?? [])]) touch(w);
  /** @type {Map<string, Map<string, any>>} what each context last read of each word */
  const held = new Map(ids.map((c) => [c, new Map()]));
  const counters = Object.fromEntries(RACE_COUNTERS.map((c) => [c, 0]));
  const lost = [];
  for (let i = 0; i <= curIdx; i++) {
    const e = steps[i], s = e.step;
    if (!held.has(s.ctx)) held.set(s.ctx, new Map());
    for (const r of s.reads ?? []) {
      const w = touch(r);
      w.value = r.value;
      w.last = { ctx: s.ctx, seq: e.seq, how: 'read' };
      // a failed compare shows what the context held against what it found: it keeps what it read
      if (!LOST.has(s.kind)) held.get(s.ctx)?.set(w.key, r.value);
    }
    for (const x of s.writes ?? []) {
      const w = touch(x);
      w.value = x.new;
      w.last = { ctx: s.ctx, seq: e.seq, how: 'write' };
    }
    for (const c of RACE_COUNTERS) counters[c] += e.stats?.[c] ?? 0;
    if (LOST.has(s.kind)) lost.push(e);
  }
  if (current) {
    const s = current.step;
    const how = s.kind === 'cmpxchg_fail' ? 'fail' : LOST.has(s.kind) ? 'held' : 'read';
    for (const r of s.reads ?? []) Object.assign(words.get(wordKey(r)), { lit: how, by: s.ctx });
    for (const x of s.writes ?? []) Object.assign(words.get(wordKey(x)), { lit: 'write', old: x.old, by: s.ctx });
  }
  const order = (w) => { const i = WORDS.indexOf(w.word); return i < 0 ? WORDS.length : i; };
  const wordList = [...words.values()].sort((a, b) => order(a) - order(b)
    || String(a.cpu ?? '').localeCompare(String(b.cpu ?? '')) || String(a.slab ?? a.addr ?? '').localeCompare(String(b.slab ?? b.addr ?? '')));

  const lanes = ids.map((id) => ({
    id, def: defs.get(id) ?? null, cpu: defs.get(id)?.cpu ?? steps.find((e) => e.step.ctx === id)?.cpu,
    cells: steps.map((e, col) => ({ col, e })).filter((x) => x.e.step.ctx === id).map(({ col, e }) => ({
      col, e, index: e.step.index, kind: e.step.kind, fn: e.fn,
      when: e === current ? 'current' : e.seq < at ? 'done' : 'next', lost: LOST.has(e.step.kind), report: !!e.report,
      follows: [...(race.follows?.entries() ?? [])].filter(([, st]) => st === e.seq).length,
    })),
    held: [...(held.get(id)?.entries() ?? [])].map(([k, v]) => ({ ...words.get(k), key: k, value: v,
      stale: words.get(k)?.value !== v })),
    // where the context runs now: a task may have migrated
    now: steps.slice(0, curIdx + 1).findLast((e) => e.step.ctx === id)?.cpu,
    done: steps.filter((e) => e.step.ctx === id).every((e) => e.seq < at),
  }));
  const bumped = current ? RACE_COUNTERS.filter((c) => (current.stats?.[c] ?? 0) > 0) : [];
  return {
    lanes, words: wordList, columns: steps.length, current, counters, bumped, lost,
    started: curIdx >= 0, finished: steps[steps.length - 1].seq < at,
    first: steps[0].seq, last: steps[steps.length - 1].seq,
  };
}

const KIND_WORDS = {
  read_tid: 'reads the transaction id',
  read_freelist: 'reads the freelist',
  read_next: 'reads the next free pointer',
  cmpxchg: 'the cmpxchg succeeds',
  cmpxchg_fail: 'the cmpxchg fails',
  lock: 'takes the lock',
  trylock_fail: 'the trylock fails',
  spin: 'spins',
  unlock: 'releases the lock',
  irq_off: 'disables interrupts',
  irq_on: 'enables interrupts',
  preempt_off: 'disables preemption',
  preempt_on: 'enables preemption',
  migrate: 'migrates',
  irq_enter: 'the interrupt arrives',
  irq_exit: 'the interrupt returns',
  done: 'returns',
};

/** A step kind in a few words for a lane's cell ("read tid", "cmpxchg ✗"). */
export function kindShort(kind) {
  switch (kind) {
    case 'cmpxchg': return 'cmpxchg ✓';
    case 'cmpxchg_fail': return 'cmpxchg ✗';
    case 'trylock_fail': return 'trylock ✗';
    case 'irq_enter': return 'irq enter';
    case 'irq_exit': return 'irq exit';
    default: return String(kind ?? '').replace(/_/g, ' ');
  }
}

/**
 * One sentence body for step event @e: what it read and wrote, and for a
 * lost compare what the context had read instead (@prior: the race's
 * earlier steps, to find it).
 * @param {Event} e
 * @param {{ names?: Record<string, string>, slabName?: (addr: string) => string|null, prior?: Event[] }} [o]
 */
export function stepWords(e, o = {}) {
  const s = e.step;
  const v = (w, x) => valueName(w, x, o);
  const name = (w) => wordName(w, o);
  const parts = [];
  const reads = (s.reads ?? []).map((r) => `${name(r)} = ${v(r, r.value)}`);
  const writes = (s.writes ?? []).map((w) => `${name(w)} ${v(w, w.old)} → ${v(w, w.new)}`);
  let what = KIND_WORDS[s.kind] ?? String(s.kind ?? '').replace(/_/g, ' ');
  if (s.kind === 'migrate' && e.cpu !== undefined) what = `migrates to CPU ${e.cpu}`;
  const prior = (o.prior ?? []).filter((p) => p.step && p.seq < e.seq);
  if (s.kind === 'cmpxchg_fail') {
    // what this context had read of the words the compare found changed,
    // on this CPU or, for a task that migrated since, on the one it left
    const had = new Map(), hadAny = new Map();
    for (const p of prior) {
      if (p.step.ctx !== s.ctx) continue;
      for (const r of p.step.reads ?? []) { had.set(wordKey(r), r.value); hadAny.set(wordAnyCpu(r), r); }
    }
    const changed = [];
    for (const r of s.reads ?? []) {
      if (had.has(wordKey(r))) {
        if (had.get(wordKey(r)) !== r.value) changed.push(`${name(r)} is ${v(r, r.value)}, not the ${v(r, had.get(wordKey(r)))} it read`);
      } else if (hadAny.has(wordAnyCpu(r))) {
        const x = hadAny.get(wordAnyCpu(r));
        changed.push(`${name(r)} is ${v(r, r.value)}, but it read ${v(x, x.value)} on CPU ${x.cpu}`);
      }
    }
    parts.push(`${what}${changed.length ? `: ${changed.join(', and ')}` : reads.length ? `: ${reads.join(', ')}` : ''}; it starts again`);
  } else if (s.kind === 'trylock_fail' || s.kind === 'spin') {
    // who holds the lock: the last context that took it
    const held = (s.reads ?? []).map((r) => {
      const by = prior.findLast((p) => (p.step.writes ?? []).some((w) => wordKey(w) === wordKey(r)));
      const w = by?.step.writes.find((x) => wordKey(x) === wordKey(r));
      return by && by.step.ctx !== s.ctx && w && w.new !== w.old && by.step.kind === 'lock'
        ? `${name(r)} is held by ${by.step.ctx} (taken at its step ${by.step.index})` : `${name(r)} = ${v(r, r.value)}`;
    });
    parts.push(`${what}${held.length ? `: ${held.join(', ')}` : ''}`);
  } else {
    parts.push(what + (reads.length ? `: ${reads.join(', ')}` : ''));
    if (writes.length) parts.push(`writes ${writes.join(', ')}`);
  }
  const stats = Object.keys(e.stats ?? {}).filter((k) => RACE_COUNTERS.includes(k));
  if (stats.length) parts.push(`${stats.map((k) => `${k} +${e.stats[k]}`).join(', ')}`);
  return `${s.ctx}, step ${s.index}, in ${e.fn}: ${parts.join('; ')}`;
}

/**
 * A schedule that runs @steps in the order they ran: one token per step
 * (`X>N` for a migration), except a context's last steps in a row after
 * its last migration, which are `X*`.  Used when the
 * session does not say which schedule it ran.
 * @param {Event[]} steps
 */
export function ranSchedule(steps) {
  const out = [];
  for (let i = 0; i < steps.length;) {
    const c = steps[i].step.ctx;
    let j = i;
    while (steps[j + 1]?.step.ctx === c) j++;
    // a migration is the schedule's doing, never part of a run to the end
    let m = i - 1;
    for (let k = i; k <= j; k++) if (steps[k].step.kind === 'migrate') m = k;
    const last = !steps.slice(j + 1).some((e) => e.step.ctx === c);
    for (let k = i; k <= (last ? m : j); k++) out.push(steps[k].step.kind === 'migrate' ? `${c}>${steps[k].cpu}` : c);
    if (last && m < j) out.push(`${c}*`);
    i = j + 1;
  }
  return out.join(' ');
}
