// @ts-check
// The operations a user can issue from the page, one row per kind of the
// scenario format (docs/scenario-format.md), and where an error points in
// a scenario's text.  A later kind is one more row here; the raw JSON box
// takes any kind the server accepts.  Pure.

/**
 * @typedef {{ op: string, call: string, fields: string[], required: string[] }} OpKind
 */

/** @type {OpKind[]} */
export const OP_KINDS = [
  { op: 'alloc', call: 'kmem_cache_alloc', fields: ['cpu', 'cache', 'node', 'gfp', 'name', 'size'], required: ['cpu', 'cache'] },
  { op: 'free', call: 'kmem_cache_free', fields: ['cpu', 'object'], required: ['cpu', 'object'] },
  { op: 'kmalloc', call: 'kmalloc', fields: ['cpu', 'size', 'node', 'gfp', 'name'], required: ['cpu', 'size'] },
  { op: 'kfree', call: 'kfree', fields: ['cpu', 'object'], required: ['cpu', 'object'] },
  { op: 'krealloc', call: 'krealloc', fields: ['cpu', 'object', 'size', 'gfp'], required: ['cpu', 'object', 'size'] },
  { op: 'alloc_bulk', call: 'kmem_cache_alloc_bulk', fields: ['cpu', 'cache', 'count', 'gfp', 'name'], required: ['cpu', 'cache', 'count'] },
  { op: 'flush_all', call: 'flush_all', fields: ['cache', 'cpu'], required: ['cache'] },
  { op: 'shrink', call: 'kmem_cache_shrink', fields: ['cache', 'cpu'], required: ['cache'] },
  { op: 'destroy', call: 'kmem_cache_destroy', fields: ['cache', 'cpu'], required: ['cache'] },
  { op: 'validate', call: 'validate_slab_cache', fields: ['cache', 'cpu'], required: ['cache'] },
  { op: 'create', call: 'kmem_cache_create', fields: ['name', 'object_size', 'align', 'flags', 'sheaf_capacity', 'cpu'], required: ['name', 'object_size'] },
  { op: 'free_bulk', call: 'kmem_cache_free_bulk', fields: ['cpu', 'cache', 'name'], required: ['cpu', 'cache', 'name'] },
  { op: 'kfree_rcu', call: 'kfree_rcu', fields: ['cpu', 'object'], required: ['cpu', 'object'] },
  { op: 'grace_period', call: 'an RCU grace period', fields: ['cpu'], required: [] },
  { op: 'rcu_barrier', call: 'kvfree_rcu_barrier', fields: ['cpu'], required: [] },
  { op: 'prefill', call: 'kmem_cache_prefill_sheaf', fields: ['cpu', 'cache', 'count', 'name', 'gfp'], required: ['cpu', 'cache', 'count', 'name'] },
  { op: 'alloc_from_sheaf', call: 'kmem_cache_alloc_from_sheaf', fields: ['cpu', 'sheaf', 'name'], required: ['cpu', 'sheaf'] },
  { op: 'refill_sheaf', call: 'kmem_cache_refill_sheaf', fields: ['cpu', 'sheaf', 'count', 'gfp'], required: ['cpu', 'sheaf', 'count'] },
  { op: 'return_sheaf', call: 'kmem_cache_return_sheaf', fields: ['cpu', 'sheaf'], required: ['cpu', 'sheaf'] },
  { op: 'write', call: 'a write by the caller (a bug on purpose)', fields: ['cpu', 'object', 'offset', 'count', 'value'], required: ['object', 'count', 'value'] },
  { op: 'alloc_pages', call: 'alloc_pages by another user', fields: ['cpu', 'node', 'gfp', 'order', 'name'], required: [] },
];

const INTS = new Set(['cpu', 'node', 'size', 'count', 'object_size', 'align', 'sheaf_capacity', 'offset', 'value', 'order']);

/**
 * An operation object from form values (strings).  Empty optional values
 * are left out; "object" becomes addr (and cache for free).
 * @param {string} kind
 * @param {Record<string, string>} values
 * @param {(addr: string) => string|null} [cacheOf] the cache name of an object
 * @param {{ at: number, caches: number }} [where] the step the operation would run at
 *   and how many caches are alive there: an operation on a cache, where none exists
 *   yet, says so
 * @returns {{ op?: any, error?: string }}
 */
export function buildOp(kind, values, cacheOf, where) {
  const k = OP_KINDS.find((x) => x.op === kind);
  if (!k) return { error: `unknown operation "${kind}"` };
  const op = { op: kind };
  for (const f of k.fields) {
    const raw = (values[f] ?? '').trim();
    if (raw === '') {
      if (f === 'cache' && k.required.includes(f) && where && !where.caches) {
        return { error: `no cache exists yet at step ${where.at}: create one first (the "create" operation), or step past the scenario's kmem_cache_create` };
      }
      if (k.required.includes(f)) return { error: `${kind} needs ${f === 'object' ? 'an object' : f}` };
      continue;
    }
    if (f === 'object') {
      if (!/^0x[0-9a-f]+$/i.test(raw)) return { error: `"${raw}" is not an address` };
      op.addr = raw.toLowerCase();
      if (kind === 'free') {
        const c = cacheOf ? cacheOf(op.addr) : null;
        if (!c) return { error: `no cache owns ${raw}` };
        op.cache = c;
      }
    } else if (f === 'flags') {
      op.flags = raw.split(/[\s,|]+/).filter(Boolean);
    } else if (INTS.has(f)) {
      if (!/^\d+$/.test(raw)) return { error: `${f} must be a whole number` };
      op[f] = Number(raw);
    } else {
      op[f] = raw;
    }
  }
  return { op };
}

/**
 * Character range of the element at @path ("ops[3].ops[1]", "caches[0]")
 * and, when given, of its key @key, in JSON text @text.
 * @param {string} text
 * @param {string} path
 * @param {string|null} [key]
 * @returns {{ start: number, end: number } | null}
 */
export function locateInJson(text, path, key) {
  const want = [];
  for (const m of path.matchAll(/([A-Za-z_]+)\[(\d+)\]/g)) want.push(m[1], Number(m[2]));
  if (key) want.push(key);
  // Walk the text with a stack of [container, key-or-index] frames.
  const stack = [];
  let i = 0, pendingKey = null;
  const matches = () => {
    const cur = stack.map((f) => f.at);
    return cur.length === want.length && cur.every((x, n) => x === want[n]);
  };
  const skipString = (j) => { j++; while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1; return j + 1; };
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const j = skipString(i);
      const top = stack[stack.length - 1];
      if (top && top.type === '{' && top.expectKey) {
        pendingKey = JSON.parse(text.slice(i, j));
        top.expectKey = false;
        if (key && stack.length === want.length && stack.slice(0, -1).every((f, n) => f.at === want[n]) && pendingKey === key)
          return { start: i, end: j };
      } else if (top) {
        if (top.type === '{') top.at = pendingKey;
        if (matches()) return { start: i, end: j };
      }
      i = j;
      continue;
    }
    if (c === '{' || c === '[') {
      const top = stack[stack.length - 1];
      if (top && top.type === '{') top.at = pendingKey;
      if (top && matches() && !key) {
        let depth = 0, j = i;
        for (; j < text.length; j++) {
          if (text[j] === '"') { j = skipString(j) - 1; continue; }
          if (text[j] === '{' || text[j] === '[') depth++;
          if (text[j] === '}' || text[j] === ']') { depth--; if (!depth) break; }
        }
        return { start: i, end: j + 1 };
      }
      stack.push(c === '{' ? { type: '{', expectKey: true, at: null } : { type: '[', at: 0 });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top && top.type === '[') top.at++;
      if (top && top.type === '{') top.expectKey = true;
    }
    i++;
  }
  return null;
}
