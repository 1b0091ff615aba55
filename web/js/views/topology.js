// @ts-check
// The structure as SVG: CPUs with their main, spare and rcu_free sheaves,
// what is held elsewhere (in flight, prefilled, pending RCU), each node's
// barn, partial list and page allocator.  Every part is a focusable button
// that selects itself for the inspector.

import { s, fill } from '../dom.js';
import { STATES, shortAddr, slabName, plural } from '../format.js';
import { termById } from '../glossary.js';
import { S } from '../model.js';

const ROLE_CODE = { main: S.main, spare: S.spare, rcu_free: S.rcu_free, barn_full: S.barn, barn_empty: S.barn, barn_partial: S.barn, prefill: S.prefill, inflight: S.inflight, rcu_pending: S.rcu_pending, other: S.other };
const ROLE_NAME = { main: 'main', spare: 'spare', rcu_free: 'rcu_free', barn_full: 'full', barn_empty: 'empty',
  barn_partial: 'partial', prefill: 'prefilled', inflight: 'in flight', rcu_pending: 'waiting for RCU', other: 'other' };

/** @param {{ onSelect: (sel: any) => void }} o */
export function createTopology(root, o) {
  const doc = root.ownerDocument;
  root.setAttribute('role', 'group');
  root.setAttribute('aria-label', 'The allocator\'s structure: CPUs, sheaves, barns, partial lists and pages');

  const button = (g, label, sel) => {
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'button');
    g.setAttribute('aria-label', label);
    g.classList.add('hit');
    g.addEventListener('click', (ev) => { ev.stopPropagation(); o.onSelect(sel); });
    // Enter selects; Space stays the page's play/pause, as on every button (keys.js)
    g.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') { ev.preventDefault(); ev.stopPropagation(); o.onSelect(sel); }
    });
    return g;
  };
  const text = (x, y, str, cls = 'lbl') => s(doc, 'text', { x, y, class: cls }, str);
  /**
   * A label that is a glossary word (the sheaf's role, a box's title): hover
   * shows the glossary's words, a click or Enter opens the glossary there
   * (Space stays play/pause, as on every button); a plain label without o.onTerm.
   */
  const termText = (x, y, str, cls, id) => {
    const el = text(x, y, str, cls);
    const t = o.onTerm ? termById(id) : null;
    if (!t) return el;
    el.classList.add('term-link');
    el.setAttribute('tabindex', '0');
    el.setAttribute('role', 'button');
    el.setAttribute('aria-label', `${str}: in the glossary`);
    el.dataset.term = id;
    el.append(s(doc, 'title', null, `${t.term}: ${t.words} (click: the glossary)`));
    el.addEventListener('click', (ev) => { ev.stopPropagation(); o.onTerm(id); });
    el.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') { ev.preventDefault(); ev.stopPropagation(); o.onTerm(id); }
    });
    return el;
  };
  /** @type {Record<string, string>} the scenario's object names at the position drawn */
  let names = {};
  // The drawn words of a button whose name says more (the barn, the page
  // allocator): beside the button, not in it, so that its accessible name
  // holds all its visible text (WCAG 2.5.3); clicks go through them (CSS).
  const labels = (...kids) => s(doc, 'g', { class: 'labels', 'aria-hidden': 'true' }, ...kids.filter(Boolean));
  const isSel = (sel, kind, id) => sel && sel.kind === kind && String(sel.id) === String(id);

  function sheaf(b, sel, touched, label) {
    const st = STATES[ROLE_CODE[b.role] ?? S.other];
    const fh = (b.size / b.capacity) * (b.h - 2);
    const cls = ['sheaf', isSel(sel, 'sheaf', b.id) && 'sel', touched.has(`sheaf:${b.id}`) && 'touched'].filter(Boolean).join(' ');
    const g = s(doc, 'g', { class: cls, dataset: { sheaf: b.id } },
      s(doc, 'rect', { x: b.x, y: b.y, width: b.w, height: b.h, class: 'cap' }),
      s(doc, 'rect', { x: b.x + 1, y: b.y + b.h - 1 - fh, width: Math.max(0, b.w - 2), height: fh, fill: st.color, class: `fill g-${st.glyph}` }));
    return button(g, label ?? `sheaf #${b.id} (${ROLE_NAME[b.role] ?? b.role}): ${b.size} of ${b.capacity} objects`, { kind: 'sheaf', id: b.id });
  }

  /**
   * @param {any} t topoScene
   * @param {{ selection: any, touched: Set<string>, scale: number }} c
   */
  /** @type {Map<string, { sig: string, el: Element }>} */
  const groups = new Map();
  /** Reuse the group built for @key when its data did not change: fewer DOM changes per step. */
  function group(key, data, build) {
    const sig = JSON.stringify(data);
    const old = groups.get(key);
    if (old && old.sig === sig) return old.el;
    const el = build();
    groups.set(key, { sig, el });
    return el;
  }

  function render(t, c) {
    const sel = c.selection, touched = c.touched;
    names = c.names ?? {};
    // a unit of margin around the scene: the outlines of the boxes on its edges stay whole
    const vb = `-1 -1 ${t.w + 2} ${t.h + 2}`;
    if (root.getAttribute('viewBox') !== vb) {
      root.setAttribute('viewBox', vb);
      root.setAttribute('width', String((t.w + 2) * c.scale));
      root.setAttribute('height', String((t.h + 2) * c.scale));
    }
    const selKey = sel ? `${sel.kind}:${sel.id}` : '';
    const tk = (keys) => keys.filter((k) => touched.has(k)).join();
    const sheafKeys = (list) => list.filter(Boolean).map((b) => `sheaf:${b.id}`);
    const out = [];
    for (const cpu of t.cpus) {
      const keys = [`cpu:${cpu.cpu}`, `caller:${cpu.cpu}`, `cpuslab:${cpu.cpu}`, `cpupartial:${cpu.cpu}`, ...sheafKeys(cpu.stacks.map((x) => x.sheaf))];
      const held = cpu.caller ? [...cpu.caller.got, ...cpu.caller.gave].map((o) => names[o.addr] ?? '').join() : '';
      out.push(group(`cpu${cpu.cpu}`, [cpu, selKey, tk(keys), held], () => cpuGroup(cpu, sel, touched)));
    }
    const hd = t.hold;
    const HOLD_TERMS = { flight: 'in-flight', prefill: 'prefilled', rcu: 'rcu-pending', other: 'other' };
    const holdBox = (b, title, kind, sub) => group(`hold-${kind}`, [b, title, sub, selKey, tk([kind, ...sheafKeys(b.sheaves ?? [])])], () => {
      const g = s(doc, 'g', { class: ['hold', touched.has(kind) && 'touched'].filter(Boolean).join(' '), 'data-hold': kind, dataset: { spot: `hold:${kind}` } },
        s(doc, 'rect', { x: b.x, y: b.y, width: b.w, height: b.h, class: 'box' }),
        termText(b.x + 8, b.y + 16, title, 'ttl', HOLD_TERMS[kind]), text(b.x + 8, b.y + 32, sub));
      for (const sh of b.sheaves ?? []) g.append(sheaf(sh, sel, touched));
      return g;
    });
    const narrow = t.w < 900;
    // the legacy model (cpu slabs) has no barns and no prefilled sheaves: their boxes say
    // so; neither has a cache of the hybrid model (6.18) without sheaves
    const legacy = t.cpus.some((c) => c.legacy) && !t.cpus.some((c) => c.stacks.length);
    // objects: all the legend counts in flight (or waiting for RCU), in their sheaves or loose
    // (a tight structure says only the objects: its sheaves are drawn under the words)
    const held = (b) => t.tight ? plural(b.objects, 'object')
      : `${plural(b.sheaves.length, 'sheaf', 'sheaves')}, ${plural(b.objects, 'object')}${!narrow && b.loose && b.sheaves.length ? ` (${b.loose} loose)` : ''}`;
    out.push(holdBox(hd.flight, 'in flight', 'flight', held(hd.flight)));
    out.push(holdBox(hd.prefill, 'prefilled', 'prefill', legacy ? (narrow ? 'none' : 'none before sheaves')
      : narrow ? plural(hd.prefill.sheaves.length, 'sheaf', 'sheaves') : `${plural(hd.prefill.sheaves.length, 'sheaf', 'sheaves')} held by callers`));
    out.push(holdBox(hd.rcu, narrow ? 'RCU' : 'pending RCU', 'rcu', narrow ? plural(hd.rcu.objects, 'object') : held(hd.rcu)));
    out.push(holdBox(hd.other, narrow ? 'other' : 'other places', 'other', plural(hd.other.sheaves.length, 'sheaf', 'sheaves')));
    for (const n of t.nodes) {
      const b = n.barn;
      const keys = [`barn:${n.node}`, `plist:${n.node}`, `pages:${n.node}`, ...sheafKeys([...b.full, ...b.empty, b.partial])];
      out.push(group(`node${n.node}`, [n, selKey, tk(keys), narrow, legacy], () => nodeGroup(n, sel, touched, narrow, legacy)));
    }
    const kids = root.children;
    if (kids.length === out.length) {
      out.forEach((el, i) => { if (kids[i] !== el) root.replaceChild(el, kids[i]); });
    } else {
      fill(root, ...out);
    }
  }

  function cpuGroup(cpu, sel, touched) {
    const g = s(doc, 'g', { class: touched.has(`cpu:${cpu.cpu}`) ? 'cpu touched' : 'cpu', dataset: { spot: `cpu:${cpu.cpu}` } },
      s(doc, 'rect', { x: cpu.x, y: cpu.y, width: cpu.w, height: cpu.h, class: 'box' }),
      text(cpu.x + 8, cpu.y + 17, `CPU ${cpu.cpu} · node ${cpu.node}`, 'ttl'));
    for (const st of cpu.stacks) {
      if (st.sheaf) {
        g.append(sheaf(st.sheaf, sel, touched, `CPU ${cpu.cpu} ${st.role} sheaf #${st.sheaf.id}: ${st.sheaf.size} of ${st.sheaf.capacity} objects`));
        g.append(text(st.x, st.y + st.h + 26, cpu.compact ? String(st.sheaf.size) : `${st.sheaf.size}/${st.sheaf.capacity}`, cpu.compact ? 'sm' : 'num'));
      } else {
        g.append(s(doc, 'rect', { x: st.x, y: st.y, width: st.w, height: st.h, class: 'none' }));
        g.append(text(st.x, st.y + st.h + 26, cpu.compact ? '–' : 'none', cpu.compact ? 'sm' : 'num'));
      }
      g.append(termText(st.x, st.y + st.h + 13, cpu.compact ? { main: 'main', spare: 'spr', rcu_free: 'rcu' }[st.role] : st.role === 'rcu_free' ? 'rcu' : st.role, cpu.compact ? 'sm' : 'lbl',
        { main: 'main', spare: 'spare', rcu_free: 'rcu-free' }[st.role] ?? 'sheaf'));
    }
    if (cpu.legacy) legacyCpu(g, cpu, sel, touched);
    g.append(callerPocket(cpu, sel, touched));
    return g;
  }

  /**
   * The caller's pocket: what the operation so far handed to the caller on
   * this CPU (solid cells, as allocated objects are drawn) or took back
   * from it (hollow cells), each a button for the inspector.
   */
  function callerPocket(cpu, sel, touched) {
    // the scenario's name of an object the caller holds, then its address: "o1 …00e80"
    const label = (a) => (names[a] ? `${names[a]} ${shortAddr(a)}` : shortAddr(a));
    const cl = cpu.caller;
    const list = cl.got.length ? cl.got : cl.gave;
    const took = !cl.got.length && cl.gave.length > 0;
    const g = s(doc, 'g', { class: touched.has(`caller:${cpu.cpu}`) ? 'caller touched' : 'caller', dataset: { cpu: String(cpu.cpu) } },
      s(doc, 'rect', { x: cl.x, y: cl.y, width: cl.w, height: cl.h, class: 'pocket' }));
    if (!list.length) {
      g.append(text(cl.x + 4, cl.y + cl.h / 2 + 4, 'caller'));
      return g;
    }
    const small = cpu.compact || cl.w < 90;
    g.append(text(cl.x + 4, cl.y + 12, small ? (took ? 'freed' : 'caller') : took ? 'caller freed' : 'caller holds', small ? 'sm' : 'lbl'));
    const cell = 10, y = cl.y + cl.h - cell - 5;
    const room = Math.max(1, Math.floor((cl.w - 8) / (cell + 3)));
    // one object: its cell and address; more: as many cells as fit, and how many
    const shown = list.length === 1 && !small ? 1 : Math.min(list.length, list.length > room ? Math.max(1, room - 2) : room);
    const st = STATES[took ? S.free : S.user];
    list.slice(0, shown).forEach((o, i) => {
      const x = cl.x + 4 + i * (cell + 3);
      const c = s(doc, 'g', { class: ['held', isSel(sel, 'object', o.addr) && 'sel'].filter(Boolean).join(' '), dataset: { object: o.addr } },
        s(doc, 'rect', { x, y, width: cell, height: cell, fill: took ? '#fff' : st.color, stroke: st.ink, class: `g-${st.glyph}` }));
      const what = `object ${label(o.addr)} ${took ? 'the caller freed' : 'handed to the caller'} on CPU ${cpu.cpu}`;
      g.append(o.slab ? button(c, what, { kind: 'object', id: o.addr, slab: o.slab }) : c);
    });
    const after = cl.x + 4 + shown * (cell + 3) + 1;
    if (list.length === 1 && !small) g.append(text(after, y + cell - 1, label(list[0].addr), 'num'));
    else if (list.length > shown) g.append(text(after, y + cell - 1, `+${list.length - shown}`, 'tiny'));
    if (list.length === 1 && small) g.append(s(doc, 'title', null, label(list[0].addr)));
    return g;
  }

  /** Legacy model: the cpu slab filled by its lockless freelist, and the CPU partial list. */
  function legacyCpu(g, cpu, sel, touched) {
    const L = cpu.legacy, b = L.slab, st = STATES[S.cpu_freelist];
    const fh = (b.freelist / b.objects) * (b.h - 2);
    const slabG = s(doc, 'g', { class: ['cpuslab', b.addr && isSel(sel, 'slab', b.addr) && 'sel', touched.has(`cpuslab:${cpu.cpu}`) && 'touched'].filter(Boolean).join(' '),
      dataset: { cpuslab: String(cpu.cpu) } },
    s(doc, 'rect', { x: b.x, y: b.y, width: b.w, height: b.h, class: b.addr ? 'cap' : 'none' }),
    s(doc, 'rect', { x: b.x + 1, y: b.y + b.h - 1 - fh, width: Math.max(0, b.w - 2), height: fh, fill: st.color, class: `fill g-${st.glyph}` }));
    if (b.addr) slabG.append(s(doc, 'title', null, `slab ${slabName(b.addr)} at ${b.addr}`));
    g.append(b.addr ? button(slabG, `CPU ${cpu.cpu} cpu slab ${slabName(b.addr)}: ${b.freelist} of ${b.objects} objects on its lockless freelist, tid ${b.tid}`,
      { kind: 'slab', id: b.addr, slab: b.addr }) : slabG);
    g.append(text(b.x, b.y + b.h + 13, 'slab', cpu.compact ? 'sm' : 'lbl'));
    g.append(text(b.x, b.y + b.h + 26, b.addr ? (cpu.compact ? String(b.freelist) : `${b.freelist}/${b.objects}`) : 'none', cpu.compact ? 'sm' : 'num'));
    const p = L.partial;
    g.append(s(doc, 'g', { class: touched.has(`cpupartial:${cpu.cpu}`) ? 'cpupartial touched' : 'cpupartial', dataset: { cpupartial: String(cpu.cpu) } },
      s(doc, 'rect', { x: p.x, y: p.y, width: p.w, height: p.h, class: 'pocket' }),
      text(p.x + 3, p.y + 12, cpu.compact ? `${L.count}/${L.limit}` : `partial ${L.count}/${L.limit}`, 'tiny')));
    for (const chip of p.chips) {
      const ch = (chip.inuse / Math.max(1, chip.objects)) * (chip.h - 2);
      g.append(button(s(doc, 'g', { class: ['chip', isSel(sel, 'slab', chip.addr) && 'sel'].filter(Boolean).join(' ') },
        s(doc, 'rect', { x: chip.x, y: chip.y, width: chip.w, height: chip.h, class: 'cap' }),
        s(doc, 'rect', { x: chip.x + 1, y: chip.y + chip.h - 1 - ch, width: Math.max(0, chip.w - 2), height: ch, fill: STATES[S.user].color }),
        s(doc, 'title', null, `slab ${slabName(chip.addr)} at ${chip.addr}`)),
      `CPU ${cpu.cpu} partial slab ${slabName(chip.addr)}: ${chip.inuse} of ${chip.objects} in use`, { kind: 'slab', id: chip.addr, slab: chip.addr }));
    }
    g.append(text(p.x, p.y + p.h + 13, 'partial', cpu.compact ? 'sm' : 'lbl'));
  }

  function nodeGroup(n, sel, touched, narrow, legacy) {
    const g = s(doc, 'g', { class: 'node', dataset: { spot: `node:${n.node}` } },
      s(doc, 'rect', { x: n.x, y: n.y, width: n.w, height: n.h, class: 'box' }),
      text(n.x + 8, n.y + 16, `node ${n.node}`, 'ttl'));
    const b = n.barn;
    if (legacy) {
      g.append(s(doc, 'g', { class: 'nobarn' },
        s(doc, 'rect', { x: b.x, y: b.y, width: b.w, height: b.h, class: 'box2' }),
        text(b.x + 6, b.y + 15, 'no barn', 'ttl'),
        text(b.x + 6, b.y + 32, narrow ? 'no sheaves' : 'barns come with sheaves (6.18+)')));
    } else {
      nodeBarn(g, n, b, sel, touched);
    }
    nodeRest(g, n, sel, touched, narrow);
    return g;
  }

  function nodeBarn(g, n, b, sel, touched) {
    const barn = button(s(doc, 'g', { class: ['barn', isSel(sel, 'barn', n.node) && 'sel', touched.has(`barn:${n.node}`) && 'touched'].filter(Boolean).join(' '), dataset: o.onTerm ? {} : { spot: `barn:${n.node}` } },
      s(doc, 'rect', { x: b.x, y: b.y, width: b.w, height: b.h, class: 'box2' }),
    ), `node ${n.node} barn: ${b.info.nr_full} full sheaves, ${b.info.nr_empty} empty, ${b.partial ? 'a partial sheaf' : 'no partial sheaf'}`, { kind: 'barn', id: n.node });
    // the title is the glossary's link (a control of its own, so not among the aria-hidden labels);
    // the barn and its title are one thing for a slide's spotlight
    g.append(o.onTerm ? s(doc, 'g', { class: 'barn-spot', dataset: { spot: `barn:${n.node}` } }, barn, termText(b.x + 6, b.y + 15, `barn · full ${b.info.nr_full}`, 'ttl', 'barn')) : barn, labels(
      o.onTerm ? null : text(b.x + 6, b.y + 15, `barn · full ${b.info.nr_full}`, 'ttl'),
      text(b.x + 6, b.y + 80, `empty ${b.info.nr_empty}`),
      b.partial ? null : text(b.x + b.w - 60, b.y + 15, b.info.partial ? 'partial' : '')));
    for (const sh of [...b.full, ...b.empty]) g.append(sheaf(sh, sel, touched));
    if (b.partial) {
      g.append(sheaf(b.partial, sel, touched, `node ${n.node} barn partial sheaf #${b.partial.id}: ${b.partial.size} of ${b.partial.capacity}`));
      g.append(text(b.partial.x - 14, b.partial.y - 4, 'partial'));
    }
  }

  /** Every how many orders the axis names one: labels of up to 16 units apart (the presenter view's are 12 px). */
  function axisStep(orders) {
    const bw = orders.length > 1 ? orders[1].x - orders[0].x : 16;
    return [2, 5, 10].find((k) => k * bw >= 16) ?? 10;
  }

  function nodeRest(g, n, sel, touched, narrow) {
    const pl = n.plist;
    g.append(s(doc, 'g', { class: touched.has(`plist:${n.node}`) ? 'plist touched' : 'plist', dataset: { spot: `partial:${n.node}` } },
      s(doc, 'rect', { x: pl.x, y: pl.y, width: pl.w, height: pl.h, class: 'box2' }),
      termText(pl.x + 6, pl.y + 15, n.narrow ? `partial ${pl.nr}` : `partial list: ${pl.nr}`, 'ttl', 'partial-list'),
      text(pl.x + 6, pl.y + 32, n.narrow ? `min ${pl.min}` : `min_partial ${pl.min}`)));
    for (const chip of pl.chips) {
      const fh = (chip.inuse / Math.max(1, chip.objects)) * (chip.h - 2);
      g.append(button(s(doc, 'g', { class: ['chip', isSel(sel, 'slab', chip.addr) && 'sel'].filter(Boolean).join(' ') },
        s(doc, 'rect', { x: chip.x, y: chip.y, width: chip.w, height: chip.h, class: 'cap' }),
        s(doc, 'rect', { x: chip.x + 1, y: chip.y + chip.h - 1 - fh, width: chip.w - 2, height: fh, fill: STATES[S.user].color }),
        s(doc, 'title', null, `slab ${slabName(chip.addr)} at ${chip.addr}`)),
      `partial slab ${slabName(chip.addr)}: ${chip.inuse} of ${chip.objects} in use`, { kind: 'slab', id: chip.addr, slab: chip.addr }));
    }
    const z = n.zone;
    const zg = button(s(doc, 'g', { class: ['zone', isSel(sel, 'zone', n.node) && 'sel', touched.has(`pages:${n.node}`) && 'touched'].filter(Boolean).join(' '), dataset: { spot: `pages:${n.node}` } },
      s(doc, 'rect', { x: z.x, y: z.y, width: z.w, height: z.h, class: 'box2' }),
      ...z.orders.map((ob) => s(doc, 'rect', { x: ob.x, y: ob.y, width: ob.w, height: Math.max(ob.h, 0.5), class: 'order' })),
    ), `node ${n.node} page allocator: ${z.zone ? z.zone.free_pages : 0} free pages; free blocks per order ${z.zone ? z.zone.nr_free.join(', ') : ''}`, { kind: 'zone', id: n.node });
    g.append(zg, labels(
      text(z.x + 6, z.y + 15, narrow ? 'pages' : 'page allocator', 'ttl'),
      text(z.x + 6, z.y + 32, z.zone ? (n.narrow ? `${z.zone.free_pages} free` : `free ${z.zone.free_pages}/${z.zone.pages}`) : 'no zone'),
      ...z.orders.filter((ob, i) => ob.order % axisStep(z.orders) === 0 || i === z.orders.length - 1 && ob.order % axisStep(z.orders) > axisStep(z.orders) / 2)
        .map((ob) => text(ob.x, z.y + z.h - 8, String(ob.order), 'tiny'))));
  }
  return { render };
}
