// Unit tests of the lab's narration line and the snapshot banner line
// (web/js/format.js stepSentence, snapshotLine), from recorded states of
// the default scenario.  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { stepSentence, snapshotLine, narrate, opCall } from '../../web/js/format.js';
import { setTexts } from '../../web/js/texts.js';

setTexts(JSON.parse(readFileSync(new URL('../../web/data/texts.json', import.meta.url))));

const fixture = (name) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
const events = fixture('default-events.json').events;
const byseq = new Map(events.map((e) => [e.seq, e]));
/** Events of the operation of event @seq, as the player gives them. */
const opEvents = (seq) => events.filter((e) => e.op === byseq.get(seq)?.op);

test('the start has its own sentence', () => {
  assert.equal(stepSentence({ at: 0, cur: { at: 0, event: null, state: {} }, prev: null }, opEvents), narrate(null));
  assert.equal(stepSentence({ at: 0, cur: null, prev: null }, opEvents), narrate(null));
});

test('a step\'s sentence names the CPU, the call and the cache', () => {
  for (const name of ['default-at5.json', 'default-at6.json', 'default-at20.json']) {
    const cur = fixture(name);
    const say = stepSentence({ at: cur.at, cur, prev: null }, opEvents);
    const e = cur.event;
    const cacheName = (id) => cur.state.caches.find((c) => c.id === id)?.name ?? '';
    assert.match(say, new RegExp(`^CPU ${e.cpu} `), name);
    assert.ok(say.includes(opCall(opEvents(e.seq), cacheName)), `${name}: ${say}`);
    assert.ok(!/undefined|NaN|null/.test(say), `${name}: ${say}`);
  }
});

test('the step before tells whether the spare sheaf was empty', () => {
  const prev = fixture('default-at5.json'), cur = fixture('default-at6.json');
  const e = cur.event;
  const c = prev.state.caches.find((x) => x.id === e.cache);
  const spareEmpty = !c?.cpus?.[e.cpu]?.spare?.size;
  const cacheName = (id) => cur.state.caches.find((x) => x.id === id)?.name ?? '';
  const pagesOf = (a) => { const sl = cur.state.slabs.find((x) => x.addr === a); return sl ? 2 ** sl.order : null; };
  const want = narrate(e, { call: opCall(opEvents(e.seq), cacheName), cacheName: cacheName(e.cache), spareEmpty, pagesOf });
  assert.equal(stepSentence({ at: 6, cur, prev }, opEvents), want);
});

test('the snapshot line: title, step, note and warnings', () => {
  assert.deepEqual(snapshotLine({ title: 'Full', position: 12 }, 'sn1', ''), { text: 'Snapshot “Full” (step 12)', warn: false });
  assert.deepEqual(snapshotLine({ title: '', position: 3 }, 'sn1', 'look'), { text: 'Snapshot “sn1” (step 3): look', warn: false });
  assert.deepEqual(snapshotLine({ title: 'T', position: 3, engine: { stored: '0.1', current: '0.2' } }, 'sn1', ''),
    { text: 'Snapshot “T” (step 3) · Warning: made with engine 0.1', warn: true });
  assert.deepEqual(snapshotLine({ title: 'T', position: 3, engine: { stored: '0.2', current: '0.2' } }, 'sn1', ''),
    { text: 'Snapshot “T” (step 3)', warn: false });
  assert.deepEqual(snapshotLine({ title: 'T', position: 3, warning: 'damaged' }, 'sn1', 'n'),
    { text: 'Snapshot “T” (step 3): n · Warning: damaged', warn: true });
});

test('among several caches, the sentence names the cache of its event', () => {
  const e = { seq: 3, op: 2, cpu: 1, node: 0, cache: 20, fn: '__pcs_replace_full_main', label: 'barn_put_fail', moves: [], stats: {}, report: null };
  const say = narrate(e, { call: 'kmem_cache_free', cacheName: 'buffer_head', nameCache: true });
  assert.match(say, /^CPU 1 kmem_cache_free: in buffer_head, /);
  assert.doesNotMatch(narrate(e, { call: 'kmem_cache_free', cacheName: 'buffer_head' }), /buffer_head/, 'one cache: no need to name it');
  assert.equal((narrate(e, { call: 'kmem_cache_free(buffer_head)', cacheName: 'buffer_head', nameCache: true }).match(/buffer_head/g) ?? []).length, 1, 'named once');
});

test('no sentence of a golden event falls back to empty words ("object the object", "slab the slab", "0 objects", a report\'s rule of "=")', () => {
  const dir = new URL('../golden/', import.meta.url);
  const bad = new Map();
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    for (const line of readFileSync(new URL(f, dir), 'utf8').split('\n')) {
      if (!line.startsWith('{"seq"')) continue;
      const e = JSON.parse(line), say = narrate(e);
      if (/object the object|slab the slab|\b0 objects\b|: =+\./.test(say)) bad.set(`${e.fn}/${e.label}`, `${f}: ${say}`);
    }
  }
  assert.deepEqual([...bad.values()], []);
});
