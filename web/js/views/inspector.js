// @ts-check
// The inspector: details of the selected object, slab, sheaf, barn or
// page allocator; the events that touched it; a hex dump of the slab with
// each stored free pointer decoded; and "free this object".

import { h, fill } from '../dom.js';
import { cacheView, describeObject, kmallocRequest } from '../model.js';
import { shortAddr, slabName, objName, placeName, hexLines, lo48, narrate } from '../format.js';

export function createInspector(root, player) {
  const doc = root.ownerDocument;
  let key = '', showAll = false;
  const dl = (pairs) => h(doc, 'dl', { class: 'kv' }, pairs.flatMap(([k, v]) => [h(doc, 'dt', null, k), h(doc, 'dd', null, v)]));
  const pick = (label, sel) => h(doc, 'button', { type: 'button', class: 'link', onclick: () => player.select(sel) }, label);
  const withTitle = (el, title) => { el.title = title; return el; };

  function history(m, id) {
    const evs = player.history(id);
    if (!evs.length) return h(doc, 'p', null, 'No loaded event moved it.');
    return h(doc, 'ol', { class: 'history' }, evs.slice(-40).map((e) => h(doc, 'li', e.seq === m.at - 1 ? { class: 'now' } : null,
      h(doc, 'button', { type: 'button', class: 'link', onclick: () => player.seek(e.seq + 1) }, `step ${e.seq + 1}`), ` ${narrate(e, { names: m.cur?.names, same: m.cur?.same_as })}`)));
  }

  function dump(m, v, objAddr) {
    const b = m.bytes;
    if (!b || !v.cache) return h(doc, 'p', { class: 'note' }, 'Loading the slab\'s bytes…');
    const lines = hexLines(b.bytes, b.addr);
    const fps = new Map();
    for (const f of b.freeptrs || []) if (f.at) fps.set(lo48(f.at), f);
    const base = lo48(b.addr);
    const objLo = objAddr ? lo48(objAddr) - base : -1, objHi = objAddr ? objLo + v.cache.slab_size : -1;
    let shown = lines;
    // the slab: its start and the lines around each stored free pointer (a full slab's start alone is all allocated bytes)
    const nearFp = (l) => [...fps.keys()].some((a) => a - base >= l.off - 16 && a - base < l.off + 32);
    if (!showAll) shown = objAddr ? lines.filter((l) => l.off + 16 > objLo - 32 && l.off < objHi + 32) : lines.filter((l, i) => i < 8 || nearFp(l)).slice(0, 64);
    const rows = shown.flatMap((l, i) => (i && l.off !== shown[i - 1].off + 16 ? [h(doc, 'tr', { class: 'gap' }, h(doc, 'td', { class: 'addr' }, '…'), h(doc, 'td', null, ''))] : []).concat(row(l)));
    function row(l) {
      const notes = [];
      for (let k = 0; k < 16; k += 8) {
        const f = fps.get(base + l.off + k);
        // the pointer's offset in its object (the cache's s->offset), not its column on this line
        if (f) notes.push(`fp of ${objName(f.object, m.cur?.names)} at +${lo48(f.at) - lo48(f.object)}: stored ${f.stored} → next ${f.decoded === '0x0' ? 'NULL' : shortAddr(f.decoded)}`);
      }
      const inObj = l.off + 16 > objLo && l.off < objHi;
      const tr = h(doc, 'tr', { class: [inObj && 'obj', notes.length && 'fp'].filter(Boolean).join(' ') || null },
        h(doc, 'td', { class: 'addr' }, `+${l.off.toString(16).padStart(4, '0')}`),
        h(doc, 'td', { class: 'hex' }, l.bytes.join(' ')));
      return notes.length ? [tr, h(doc, 'tr', { class: 'fpnote' }, h(doc, 'td', null, ''), h(doc, 'td', null, `↑ ${notes.join('; ')}`))] : [tr];
    }
    return h(doc, 'div', { class: 'dump' },
      h(doc, 'p', null, `Slab ${slabName(b.addr)} (${shortAddr(b.addr, 8)}): ${b.length} of ${b.size} bytes${b.truncated ? ' (truncated)' : ''}. `,
        `Free pointers are stored ${m.session?.info?.machine?.freelist_hardened ? 'encoded (CONFIG_SLAB_FREELIST_HARDENED)' : 'plainly'} at offset ${v.cache.offset} of each free object.`),
      h(doc, 'table', { class: 'hexdump', id: 'hexdump' }, h(doc, 'thead', null, h(doc, 'tr', null,
        h(doc, 'th', { scope: 'col' }, 'offset'), h(doc, 'th', { scope: 'col' }, 'bytes (free pointers decoded below their line)'))), h(doc, 'tbody', null, rows)),
      h(doc, 'button', { type: 'button', onclick: () => { showAll = !showAll; key = ''; player.emit(); } }, showAll ? 'Show less' : 'Show the whole slab'));
  }

  function freeForm(m, v, addr) {
    const cpu = h(doc, 'select', { id: 'free-cpu', 'aria-label': 'CPU that frees it' },
      ...Array.from({ length: m.cur.state.nr_cpus }, (_, i) => h(doc, 'option', { value: i }, `CPU ${i}`)));
    const go = h(doc, 'button', { type: 'button', id: 'free-object', onclick: async () => {
      go.setAttribute('disabled', '');
      try {
        await player.apply([{ op: 'free', cpu: Number(cpu.value), addr, cache: v.cache?.name }]);
      } catch (err) { player.showError(err); }
    } }, `kmem_cache_free this object`);
    return h(doc, 'p', { class: 'row' }, cpu, ' ', go);
  }

  return {
    render(m) {
      const sel = m.selection;
      const k = `${m.session?.id}@${m.at}/${m.cacheId}/${sel?.kind}:${sel?.id}/${m.bytes ? m.bytes.slab : ''}/${showAll}`;
      if (k === key) return;
      key = k;
      if (!sel || !m.cur) {
        fill(root, h(doc, 'p', null, 'Click an object cell, a slab, a sheaf, a barn or the page allocator to inspect it.'));
        return;
      }
      const st = m.cur.state;
      const v = cacheView(st, m.cacheId);
      if (sel.kind === 'object') {
        const d = describeObject(v, sel.id);
        const sheaf = d.sheaf ? st.sheaves.find((x) => x.id === d.sheaf) : null;
        const name = m.cur.names?.[sel.id], first = m.cur.same_as?.[sel.id];
        const req = d.state === 'user' && m.bytes && d.slab && lo48(m.bytes.addr) === lo48(d.slab) ? kmallocRequest(v.cache, m.bytes.bytes, m.bytes.addr, sel.id) : null;
        fill(root, h(doc, 'h3', { title: sel.id }, name ? `Object ${name}` : `Object ${sel.id}`),
          dl([...(name ? [['name', `${name} (the scenario's name)`]] : []),
            ...(first ? [['same object as', `${first}: freed, then handed out again as ${name}`]] : []), ['address', sel.id], ['cache', v.cache?.name ?? '?'], ['slab', d.slab ? withTitle(pick(slabName(d.slab), { kind: 'slab', id: d.slab, slab: d.slab }), d.slab) : 'none'],
            ['index in slab', String(d.index)], ['state', d.stateName],
            ...(sheaf ? [['sheaf', pick(`#${sheaf.id} (${placeName(sheaf.place)}), slot ${d.slot}`, { kind: 'sheaf', id: sheaf.id })]] : []),
            ...(d.freelistPos != null ? [['freelist position', `${d.freelistPos} (0 is the head)`]] : []),
            ...(req ? [['requested size', `${req.requested} of ${v.cache.object_size} bytes (orig_size, kept after the tracks)`]] : []),
            ...(req?.redzone ? [['kmalloc red zone', `bytes ${req.requested}..${v.cache.object_size - 1}: ${req.redzone.join(' ')} (cc while allocated; checked on free and by validate)`]] : [])]),
          d.state === 'user' ? freeForm(m, v, sel.id) : null,
          h(doc, 'h4', null, 'Events that moved it'), history(m, sel.id),
          h(doc, 'h4', null, 'Bytes of its slab'), dump(m, v, sel.id));
        return;
      }
      if (sel.kind === 'slab') {
        const s = v.slabs.find((x) => x.addr === sel.id) ?? st.slabs.find((x) => x.addr === sel.id);
        if (!s) { fill(root, h(doc, 'p', null, `Slab ${sel.id} is not in this state (it was discarded or not made yet).`), h(doc, 'h4', null, 'Events that moved it'), history(m, sel.id)); return; }
        fill(root, h(doc, 'h3', { title: s.addr }, `Slab ${s.name ?? slabName(s.addr)}`),
          dl([['address', s.addr], ['node', String(s.node)], ['order', `${s.order} (${4096 << s.order} bytes)`], ['list', placeName(s.place)],
            ['in use', `${s.inuse} of ${s.objects}`], ['freelist head', s.freelist_head === '0x0' ? 'NULL' : s.freelist_head],
            ['freelist', s.freelist.length ? h(doc, 'span', null, s.freelist.slice(0, 64).map((a, i) => [i ? ' → ' : '', withTitle(pick(objName(a, m.cur.names, m.cur.same_as), { kind: 'object', id: a, slab: s.addr }), a)])) : 'empty']]),
          h(doc, 'h4', null, 'Events that moved it'), history(m, s.addr),
          h(doc, 'h4', null, 'Bytes'), dump(m, v, null));
        return;
      }
      if (sel.kind === 'sheaf') {
        const sh = st.sheaves.find((x) => x.id === Number(sel.id));
        if (!sh) { fill(root, h(doc, 'p', null, `Sheaf #${sel.id} does not exist at this step.`), h(doc, 'h4', null, 'Events that moved it'), history(m, sel.id)); return; }
        fill(root, h(doc, 'h3', null, `Sheaf #${sh.id}`),
          dl([['where', placeName(sh.place)], ['size', `${sh.size} of ${sh.capacity}`],
            ['objects (top last)', h(doc, 'span', null, sh.objects.slice(-64).map((a, i) => [i ? ' ' : '', withTitle(pick(objName(a, m.cur.names, m.cur.same_as), { kind: 'object', id: a, slab: v.slabOf(a)?.addr }), a)]))]]),
          h(doc, 'h4', null, 'Events that moved it'), history(m, sh.id));
        return;
      }
      if (sel.kind === 'barn') {
        const n = Number(sel.id);
        const b = v.cache?.nodes?.[n]?.barn;
        const list = st.sheaves.filter((x) => x.cache === m.cacheId && x.place.type.startsWith('barn_') && (x.place.node ?? 0) === n);
        fill(root, h(doc, 'h3', null, `Barn of node ${n}`),
          dl([['full sheaves', String(b?.nr_full ?? 0)], ['empty sheaves', String(b?.nr_empty ?? 0)], ['partial sheaf', b?.partial ? `#${b.partial}` : 'none']]),
          h(doc, 'ul', null, list.map((x) => h(doc, 'li', null, pick(`#${x.id}`, { kind: 'sheaf', id: x.id }), ` ${x.place.type.slice(5)}: ${x.size}/${x.capacity}`))));
        return;
      }
      if (sel.kind === 'zone') {
        const z = st.zones.find((x) => x.node === Number(sel.id));
        fill(root, h(doc, 'h3', null, `Page allocator of node ${sel.id}`),
          z ? dl([['zone', z.name], ['start', z.start], ['pages', String(z.pages)], ['free pages', String(z.free_pages)]]) : null,
          z ? h(doc, 'table', { class: 'orders' }, h(doc, 'thead', null, h(doc, 'tr', null, h(doc, 'th', { scope: 'col' }, 'order'), h(doc, 'th', { scope: 'col' }, 'block size'), h(doc, 'th', { scope: 'col' }, 'free blocks'))),
            h(doc, 'tbody', null, z.nr_free.map((c, o) => h(doc, 'tr', null, h(doc, 'td', null, String(o)), h(doc, 'td', null, `${4 << o} KiB`), h(doc, 'td', { class: 'num' }, String(c)))))) : null);
        return;
      }
      fill(root, h(doc, 'p', null, 'Nothing to show.'));
    },
  };
}

