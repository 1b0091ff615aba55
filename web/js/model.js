// @ts-check
// Where every object of a cache is, from one snapshot: the per-object
// state codes the slab map draws and the inspector names.  Pure.

import { STATES, addrAdd, lo48 } from './format.js';

/** @typedef {import('./types.js').Snapshot} Snapshot */
/** @typedef {import('./types.js').Slab} Slab */
/** @typedef {import('./types.js').Cache} Cache */

/** State codes: indexes into format.STATES. */
export const S = Object.fromEntries(STATES.map((s, i) => [s.key, i]));

const SHEAF_STATE = {
  main: S.main, spare: S.spare, rcu_free: S.rcu_free,
  barn_full: S.barn, barn_empty: S.barn, barn_partial: S.barn,
  prefill: S.prefill, inflight: S.inflight, rcu_pending: S.rcu_pending,
};

/**
 * @typedef {{ s: number, sheaf?: number, slot?: number, fl?: number, place?: string, cpu?: number }} Where
 * @typedef {{ cache: Cache|null, slabs: Slab[], sheaves: import('./types.js').Sheaf[],
 *             where: Map<string, Where>, codes: Map<string, Uint8Array>,
 *             counts: number[], slabOf: (addr: string) => Slab|null }} CacheView
 */

/** Address of object @i of slab @slab in cache @c. */
export function objectAddr(c, slab, i) {
  return addrAdd(slab.addr, (c.red_left_pad || 0) + i * c.slab_size);
}

/** Index of object @addr in @slab, or -1. */
export function objectIndex(c, slab, addr) {
  const off = lo48(addr) - lo48(slab.addr) - (c.red_left_pad || 0);
  if (off < 0 || off % c.slab_size) return -1;
  const i = off / c.slab_size;
  return i < slab.objects ? i : -1;
}

/** Bytes of a slab of @order. */
export const slabBytes = (order) => 4096 * 2 ** order;

/**
 * Classify every object of cache @cacheId in @snap.
 * @param {Snapshot} snap
 * @param {number} cacheId
 * @returns {CacheView}
 */
export function cacheView(snap, cacheId) {
  const cache = snap.caches.find((c) => c.id === cacheId) || null;
  const slabs = snap.slabs.filter((s) => s.cache === cacheId);
  const sheaves = snap.sheaves.filter((s) => s.cache === cacheId);
  /** @type {Map<string, Where>} */
  const where = new Map();
  for (const sh of sheaves) {
    const s = SHEAF_STATE[sh.place.type] ?? S.other;
    sh.objects.forEach((a, i) => where.set(a, { s, sheaf: sh.id, slot: i, place: sh.place.type }));
  }
  for (const sl of slabs) sl.freelist.forEach((a, i) => where.set(a, { s: S.free, fl: i }));
  // legacy model: each CPU's lockless freelist (its objects count in the slab's inuse)
  (cache?.cpus || []).forEach((c) => (c.cpu_slab?.freelist || []).forEach((a, i) =>
    where.set(a, { s: S.cpu_freelist, fl: i, place: 'cpu_freelist', cpu: c.cpu })));
  for (const a of snap.inflight || []) if (!where.has(a)) where.set(a, { s: S.inflight });
  for (const a of snap.rcu_objs || snap.rcu_pending || []) where.set(a, { s: S.rcu_pending });
  const codes = new Map();
  const counts = STATES.map(() => 0);
  // Slabs are sorted by address within a cache and node; index them for slabOf().
  const sorted = slabs.map((s) => ({ s, lo: lo48(s.addr), hi: lo48(s.addr) + slabBytes(s.order) }))
    .sort((a, b) => a.lo - b.lo);
  const find = (x) => {
    let a = 0, b = sorted.length - 1;
    while (a <= b) {
      const m = (a + b) >> 1;
      if (x < sorted[m].lo) b = m - 1;
      else if (x >= sorted[m].hi) a = m + 1;
      else return sorted[m];
    }
    return null;
  };
  if (cache) {
    const UNKNOWN = 255, pad = cache.red_left_pad || 0, stride = cache.slab_size;
    for (const sl of slabs) codes.set(sl.addr, new Uint8Array(sl.objects).fill(UNKNOWN));
    // Only the objects somewhere other than with a caller are listed: place them by
    // arithmetic (no address strings per object; a slab can hold thousands).
    for (const [a, w] of where) {
      const x = lo48(a), r = find(x);
      if (!r) continue;
      const off = x - r.lo - pad;
      if (off < 0 || off % stride) continue;
      const arr = codes.get(r.s.addr);
      if (off / stride < arr.length) arr[off / stride] = w.s;
    }
    for (const sl of slabs) {
      const arr = codes.get(sl.addr);
      let inuseSeen = 0, unknown = 0;
      for (let i = 0; i < arr.length; i++) {
        if (arr[i] === UNKNOWN) unknown++;
        else if (arr[i] !== S.free) inuseSeen++;
      }
      // Objects in no sheaf and on no freelist are held by callers, except that a
      // fresh slab (DEFERRED_FREELIST) keeps free objects linked into no freelist
      // yet: the slab's inuse says how many; they are the last ones it would hand out.
      let fresh = Math.max(0, Math.min(unknown, unknown - (sl.inuse - inuseSeen)));
      for (let i = arr.length - 1; i >= 0; i--) {
        if (arr[i] !== UNKNOWN) continue;
        arr[i] = fresh > 0 ? S.fresh : S.user;
        fresh--;
      }
      for (let i = 0; i < arr.length; i++) counts[arr[i]]++;
    }
  }
  const slabOf = (addr) => find(lo48(addr))?.s ?? null;
  return { cache, slabs, sheaves, where, codes, counts, slabOf };
}

/**
 * What the inspector says about object @addr.
 * @param {CacheView} v
 * @param {string} addr
 */
export function describeObject(v, addr) {
  const slab = v.slabOf(addr);
  const w = v.where.get(addr);
  const index = slab && v.cache ? objectIndex(v.cache, slab, addr) : -1;
  const code = w ? w.s : slab && index >= 0 ? v.codes.get(slab.addr)?.[index] ?? S.user : S.user;
  const state = STATES[code];
  return { addr, slab: slab ? slab.addr : null, index, state: state.key, stateName: state.desc,
    sheaf: w?.sheaf ?? null, slot: w?.slot ?? null, freelistPos: w?.fl ?? null };
}

/**
 * Objects held by callers (allocated) in cache view @v, by address order,
 * for the "free an object" picker.
 * @param {CacheView} v
 */
export function allocatedObjects(v, limit = 2000) {
  const out = [];
  if (!v.cache) return out;
  for (const sl of v.slabs) {
    const arr = v.codes.get(sl.addr);
    for (let i = 0; arr && i < arr.length && out.length < limit; i++)
      if (arr[i] === S.user) out.push(objectAddr(v.cache, sl, i));
  }
  return out;
}

/** Sum the per-CPU counters of a cache: {name: [c0, c1, ...]}. */
export function perCpuStats(cache) {
  const out = {};
  if (!cache) return out;
  cache.cpus.forEach((c, i) => {
    for (const [k, v] of Object.entries(c.stats || {})) {
      if (!out[k]) out[k] = cache.cpus.map(() => 0);
      out[k][i] = v;
    }
  });
  return out;
}

/**
 * The requested size an object of a kmalloc cache keeps (orig_size, after its
 * two tracks: SLAB_KMALLOC with SLAB_STORE_USER) and, with SLAB_RED_ZONE, the
 * kmalloc red zone between it and the object size, read from its slab's bytes.
 * @param {any} cache the state's cache (flags, object_size, inuse, offset)
 * @param {string} hex the slab's bytes, two hex digits each
 * @param {string} slabAddr address of the slab's first byte
 * @param {string} objAddr the object
 * @returns {{ requested: number, redzone: string[]|null }|null} null when the
 *   cache keeps no requested size or the bytes are not there
 */
export function kmallocRequest(cache, hex, slabAddr, objAddr) {
  const flags = cache?.flags ?? [];
  if (!flags.includes('SLAB_KMALLOC') || !flags.includes('SLAB_STORE_USER') || !hex) return null;
  const obj = lo48(objAddr) - lo48(slabAddr);
  const at = obj + (cache.offset >= cache.inuse ? cache.inuse + 8 : cache.inuse) + 64;
  if (obj < 0 || (at + 4) * 2 > hex.length) return null;
  let requested = 0;
  for (let i = 3; i >= 0; i--) requested = requested * 256 + parseInt(hex.substr((at + i) * 2, 2), 16);
  if (!flags.includes('SLAB_RED_ZONE') || requested >= cache.object_size) return { requested, redzone: null };
  const redzone = [];
  for (let i = obj + requested; i < obj + cache.object_size; i++) redzone.push(hex.substr(i * 2, 2));
  return { requested, redzone };
}
