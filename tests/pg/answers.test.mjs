// Followers' answers to a lecture's questions on two servers sharing one
// PostgreSQL store: followers answer on A and on B, and the presenter's
// tally, read on either, counts them all (each answer is a row of the
// store; a voter's later answer, sent to the other server, replaces its
// first).  Run by tests/pg/run.sh (SLUBLAB_TEST_PG set).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { PG, api, freshDb, start, tmpdir } from '../api/lib.mjs';

let a, b;
before(async () => {
  assert.ok(PG, 'SLUBLAB_TEST_PG names a PostgreSQL server (tests/pg/run.sh)');
  const dir = tmpdir();
  const db = freshDb(dir, 'answers');
  a = await start({ dir, db, args: ['--answer-rate', '0'] });
  b = await start({ dir, db, args: ['--answer-rate', '0'] });
});
after(async () => { await a?.stop(); await b?.stop(); });

const answer = (srv, id, body) => api(srv.url, 'POST', `/api/lectures/${id}/answers`, { body });
const tally = (srv, id, at, token) => api(srv.url, 'GET', `/api/lectures/${id}/answers?at=${at}`, { token });

test('answers sent to A and to B: one tally on both', async () => {
  const l = await api(a.url, 'POST', '/api/lectures', { body: {} });
  assert.equal(l.status, 201, l.text);
  const { id, token } = l.json;
  const sent = [
    [a, 'voter-a-one', 'refill'], [a, 'voter-a-two', 'barn_full'],
    [b, 'voter-b-one', 'refill'], [b, 'voter-b-two', 'refill'], [b, 'voter-b-three', 'swap_spare'],
  ];
  for (const [srv, voter, choice] of sent) {
    const r = await answer(srv, id, { at: 7, choice, voter });
    assert.equal(r.status, 200, r.text);
  }
  // another question, on B only
  assert.equal((await answer(b, id, { at: 8, choice: 'keep', voter: 'voter-b-one' })).status, 200);
  const want = { at: 7, counts: { barn_full: 1, refill: 3, swap_spare: 1 }, total: 5 };
  for (const srv of [a, b]) {
    const r = await tally(srv, id, 7, token);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, want);
  }
  assert.deepEqual((await tally(a, id, 8, token)).json, { at: 8, counts: { keep: 1 }, total: 1 });

  // a voter of A changes its answer through B: replaced, not added
  assert.equal((await answer(b, id, { at: 7, choice: 'swap_spare', voter: 'voter-a-one' })).status, 200);
  const after = { at: 7, counts: { barn_full: 1, refill: 2, swap_spare: 2 }, total: 5 };
  assert.deepEqual((await tally(a, id, 7, token)).json, after);
  assert.deepEqual((await tally(b, id, 7, token)).json, after);
  // still the lecture's token on either server
  assert.equal((await tally(b, id, 7)).status, 403);
  assert.equal((await tally(b, id, 7, 'f'.repeat(32))).status, 403);
});
