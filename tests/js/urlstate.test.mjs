// Unit tests of web/js/urlstate.js: what a query string asks the page to
// open, and the links (permalinks, the address bar) that reopen a view.
// Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  readQuery, parseSelection, selectionParam, viewParams, viewLink, snapshotLink, addressFor, createUrlKeeper,
} from '../../web/js/urlstate.js';

const view = (o = {}) => ({ session: 's1', at: 12, cacheId: 0, tab: 'explain', selection: null, presenter: false, following: false, ...o });

test('readQuery: a plain page starts a new session of the default scenario', () => {
  const q = readQuery('');
  assert.equal(q.fresh, 'default');
  assert.equal(q.follow, null);
  assert.equal(q.snapshot, null);
  assert.equal(q.session, null);
  assert.equal(q.at, 0);
  assert.equal(q.cache, undefined);
  assert.equal(q.tab, null);
  assert.equal(q.sel, null);
  assert.equal(q.presenter, false);
  assert.equal(q.view, null);
  assert.equal(q.play, false);
  assert.equal(readQuery('?scenario=free-storm&play=1').fresh, 'free-storm');
  assert.equal(readQuery('?scenario=free-storm&play=1').play, true);
});

test('readQuery: a session, a snapshot or a presenter to follow opens no new session', () => {
  const s = readQuery('?session=abc&at=20&cache=1&tab=counters&sel=object:0xffff888100000040:0xffff888100000000&presenter=1');
  assert.equal(s.fresh, null);
  assert.equal(s.session, 'abc');
  assert.equal(s.at, 20);
  assert.equal(s.cache, 1);
  assert.equal(s.tab, 'counters');
  assert.deepEqual(s.sel, { kind: 'object', id: '0xffff888100000040', slab: '0xffff888100000000' });
  assert.equal(s.presenter, true);
  const n = readQuery(new URLSearchParams('snapshot=sn1&note=look+here'));
  assert.equal(n.fresh, null);
  assert.equal(n.snapshot, 'sn1');
  assert.equal(n.note, 'look here');
  const f = readQuery('?follow=abc');
  assert.equal(f.fresh, null);
  assert.equal(f.follow, 'abc');
  assert.equal(readQuery('?view=compare').view, 'compare');
  assert.equal(readQuery('?session=abc').note, undefined);
  assert.equal(readQuery('?session=abc&cache=0').cache, 0);
});

test('selections round-trip through the query string', () => {
  assert.deepEqual(parseSelection('slab:0xffff888100000000'), { kind: 'slab', id: '0xffff888100000000', slab: '0xffff888100000000' });
  assert.deepEqual(parseSelection('sheaf:7'), { kind: 'sheaf', id: 7, slab: undefined });
  assert.deepEqual(parseSelection('barn:0'), { kind: 'barn', id: '0', slab: undefined });
  for (const sel of [
    { kind: 'object', id: '0xffff888100000040', slab: '0xffff888100000000' },
    { kind: 'slab', id: '0xffff888100000000', slab: '0xffff888100000000' },
    { kind: 'sheaf', id: 7, slab: undefined },
  ]) assert.deepEqual(parseSelection(selectionParam(sel)), sel);
  assert.equal(selectionParam({ kind: 'slab', id: '0xa', slab: '0xa' }), 'slab:0xa');
  assert.equal(selectionParam({ kind: 'object', id: '0xb', slab: '0xa' }), 'object:0xb:0xa');
});

test('viewParams: session, step, cache, a tab other than Explain, selection, presenter', () => {
  assert.equal(String(viewParams(view())), 'session=s1&at=12&cache=0');
  assert.equal(String(viewParams(view({ session: null }))), 'at=12&cache=0');
  assert.equal(String(viewParams(view({ tab: 'inspect', selection: { kind: 'sheaf', id: 3 }, presenter: true, cacheId: 2 }))),
    'session=s1&at=12&cache=2&tab=inspect&sel=sheaf%3A3&presenter=1');
  // what viewParams writes, readQuery reads back
  const q = readQuery(`?${viewParams(view({ tab: 'table', selection: { kind: 'object', id: '0xb', slab: '0xa' }, cacheId: 1 }))}`);
  assert.equal(q.session, 's1');
  assert.equal(q.at, 12);
  assert.equal(q.cache, 1);
  assert.equal(q.tab, 'table');
  assert.deepEqual(q.sel, { kind: 'object', id: '0xb', slab: '0xa' });
});

test('links: the view and a snapshot of it', () => {
  assert.equal(viewLink('http://h:1', view()), 'http://h:1/?session=s1&at=12&cache=0');
  assert.equal(snapshotLink('http://h:1', view({ tab: 'inspect' }), 'sn9', ''), 'http://h:1/?cache=0&tab=inspect&snapshot=sn9');
  // copied from the Share tab, a link reopens the lab at the step (the Explain tab), not the Share tab
  assert.equal(snapshotLink('http://h:1', view({ tab: 'share' }), 'sn9', ''), 'http://h:1/?cache=0&snapshot=sn9');
  assert.equal(viewLink('http://h:1', view({ tab: 'share' })), 'http://h:1/?session=s1&at=12&cache=0');
  assert.equal(readQuery(new URL(viewLink('http://h:1', view({ tab: 'share' }))).search).tab, null);
  // the address bar keeps the tab: a reload shows the page as it was
  assert.equal(addressFor(view({ tab: 'share' }), 'lab'), '/?session=s1&at=12&cache=0&tab=share');
  const long = snapshotLink('http://h:1', view(), 'sn9', 'x'.repeat(600));
  assert.equal(new URL(long).searchParams.get('note'), 'x'.repeat(500));
  assert.equal(new URL(long).searchParams.has('session'), false);
  assert.equal(new URL(long).searchParams.has('at'), false);
});

test('addressFor: the lab shows its view, compare its page, a follower keeps the link', () => {
  assert.equal(addressFor(view(), 'lab'), '/?session=s1&at=12&cache=0');
  assert.equal(addressFor(view(), 'scenario'), '/?session=s1&at=12&cache=0');
  assert.equal(addressFor(view(), 'compare'), '/?view=compare');
  assert.equal(addressFor(view({ following: true }), 'lab'), null);
  assert.equal(addressFor(view({ following: true }), 'compare'), null);
  assert.equal(addressFor(view({ session: null }), 'lab'), null);
});

test('createUrlKeeper writes the address once things are quiet', async () => {
  const written = [];
  let address = '/?a';
  const keep = createUrlKeeper({ history: /** @type {any} */ ({ replaceState: (s, t, url) => written.push(url) }) }, () => address, 10);
  keep(); keep(); address = '/?b'; keep();
  await new Promise((ok) => setTimeout(ok, 40));
  assert.deepEqual(written, ['/?b']);
  address = null;
  keep();
  await new Promise((ok) => setTimeout(ok, 40));
  assert.deepEqual(written, ['/?b'], 'no address: the URL stays');
});

test('readQuery: a lecture link follows the lecture and opens no new session', () => {
  const q = readQuery('?lecture=abcdefghij');
  assert.equal(q.lecture, 'abcdefghij');
  assert.equal(q.fresh, null);
  assert.equal(q.follow, null);
});
