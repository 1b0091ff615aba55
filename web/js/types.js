// @ts-check
// Shapes of the server's JSON (docs/events.md), for editors' type checks.
// Nothing is exported at run time.

/**
 * @typedef {{ type: string, cpu?: number, node?: number, slot?: number, slab?: string, sheaf?: number }} Place
 * @typedef {{ kind: 'object'|'slab'|'sheaf', id: string|number, from: Place, to: Place }} Move
 * @typedef {{ word: string, cpu?: number, slab?: string, addr?: string, value?: string, old?: string, new?: string }} StepWord
 * @typedef {{ ctx: string, index: number, kind: string, reads?: StepWord[], writes?: StepWord[] }} Step
 * @typedef {{ seq: number, op: number, cpu: number, node: number, cache: number, fn: string,
 *             label: string|null, moves: Move[], stats: Record<string, number>, report: string|null, page?: any,
 *             ctx?: string, step?: Step }} Event
 * @typedef {{ id: number, size: number, capacity: number } | null} CpuSheaf
 * @typedef {{ slab: string|null, tid: number, freelist: string[], partial: string[] }} CpuSlab
 * @typedef {{ cpu: number, main: CpuSheaf, spare: CpuSheaf, rcu_free: CpuSheaf, stats: Record<string, number>,
 *             cpu_slab?: CpuSlab }} CacheCpu
 * @typedef {{ node: number, nr_partial: number, nr_slabs: number, total_objects: number,
 *             barn: { nr_full: number, nr_empty: number, partial: number|null } }} CacheNode
 * @typedef {{ id: number, name: string, alive: boolean, object_size: number, slab_size: number,
 *             align: number, inuse: number, offset: number, red_left_pad: number, flags: string[],
 *             order: number, objs_per_slab: number, min_partial: number, sheaf_capacity: number,
 *             slabs: number, objects: number, partial: number, objects_partial: number,
 *             total_objects: number, stats: Record<string, number>, cpus: CacheCpu[], nodes: CacheNode[],
 *             cpu_partial?: number, cpu_partial_slabs?: number }} Cache
 * @typedef {{ addr: string, cache: number, node: number, order: number, objects: number, inuse: number,
 *             place: Place, freelist_head: string, freelist: string[] }} Slab
 * @typedef {{ id: number, cache: number, place: Place, size: number, capacity: number, objects: string[] }} Sheaf
 * @typedef {{ node: number, name: string, start: string, pages: number, free_pages: number, nr_free: number[] }} Zone
 * @typedef {{ seq: number, op: number, nr_cpus: number, nr_nodes: number, cpu_node: number[],
 *             caches: Cache[], slabs: Slab[], sheaves: Sheaf[], zones: Zone[], inflight: string[],
 *             rcu_objs?: string[], rcu_pending?: string[],
 *             paged?: { by: string, limit: number, items: number, slabs: number, sheaves: number, objects: number, rcu_pending: number },
 *             page?: { cache: number, slabs: number, slabs_total: number } }} Snapshot
 *   paged: the server left the lists out (docs/api.md, "Paged states"); page: the cache whose lists the player merged in
 * @typedef {{ at: number, event: Event|null, state: Snapshot, names?: Record<string, string>, names_more?: number, same_as?: Record<string, string>, slab?: any }} StateResponse
 */

export {};
