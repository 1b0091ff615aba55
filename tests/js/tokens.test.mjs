// Unit tests of web/js/tokens.js: the write tokens the browser keeps, in
// a storage that may be missing or full of junk.  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTokens, browserStorage, MAX_TOKENS, SNAPSHOT_KEY } from '../../web/js/tokens.js';

/** A Storage over a Map. */
function memoryStorage() {
  const m = new Map();
  return { map: m, getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)) };
}

test('tokens are kept per session and found again', () => {
  const st = memoryStorage();
  const t = createTokens(st);
  assert.equal(t.get('a'), null);
  t.keep('a', 'tok-a');
  t.keep('b', 'tok-b');
  t.keep('a', 'tok-a2');
  assert.equal(t.get('a'), 'tok-a2');
  assert.equal(createTokens(st).get('b'), 'tok-b', 'another page of the same browser finds it');
  assert.deepEqual(JSON.parse(st.map.get('slublab.tokens')), { a: 'tok-a2', b: 'tok-b' });
  t.keep('c', null);
  t.keep(null, 'x');
  assert.deepEqual(Object.keys(t.all()), ['a', 'b'], 'no id or no token: nothing kept');
});

test('only the newest tokens are kept', () => {
  const t = createTokens(memoryStorage());
  for (let i = 0; i <= MAX_TOKENS; i++) t.keep(`s${i}`, `t${i}`);
  assert.equal(Object.keys(t.all()).length, MAX_TOKENS);
  assert.equal(t.get('s0'), null);
  assert.equal(t.get(`s${MAX_TOKENS}`), `t${MAX_TOKENS}`);
});

test('no storage or junk in it: no tokens, no errors', () => {
  const none = createTokens(null);
  none.keep('a', 'x');
  assert.equal(none.get('a'), null);
  assert.deepEqual(none.all(), {});
  const st = memoryStorage();
  st.setItem('slublab.tokens', '{not json');
  assert.equal(createTokens(st).get('a'), null);
});

test('browserStorage: the window\'s localStorage unless it refuses', () => {
  const st = memoryStorage();
  assert.equal(browserStorage({ localStorage: /** @type {any} */ (st) }), st);
  assert.equal(browserStorage({}), null);
  const refusing = { get localStorage() { throw new Error('SecurityError'); } };
  assert.equal(browserStorage(/** @type {any} */ (refusing)), null);
  assert.equal(browserStorage({ localStorage: /** @type {any} */ ({ getItem() { throw new Error('denied'); } }) }), null);
});

test('the snapshots\' tokens are kept apart from the sessions\'', () => {
  const st = memoryStorage();
  const sessions = createTokens(st), snaps = createTokens(st, SNAPSHOT_KEY);
  sessions.keep('s1', 'ts');
  snaps.keep('n1', 'tn');
  assert.deepEqual(sessions.all(), { s1: 'ts' });
  assert.deepEqual(snaps.all(), { n1: 'tn' });
  assert.equal(createTokens(st, SNAPSHOT_KEY).get('n1'), 'tn', 'another page of the same browser lists it');
  assert.equal(snaps.get('s1'), null);
});
