// Followers' answers to a lecture's questions on two servers sharing one
// PostgreSQL store: followers answer on A and on B, and the presenter's
// tally, read on either, counts them all (each answer is a row of the
// store; a follower's later answer, sent to the other server, replaces its
// first; a follower's token from one server is good on the other).  Run by tests/pg/run.sh (SLUBLAB_TEST_PG set).
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
  const ses = await api(a.url, 'POST', '/api/sessions', { body: { scenario: 'free-storm' } });
  assert.equal(ses.status, 201, ses.text);
  const l = await api(a.url, 'POST', '/api/lectures', { body: { session: ses.json.id } });
  assert.equal(l.status, 201, l.text);
  const { id, token } = l.json;
  // a follower joins on either server; its token is good on both (the lecture's secret is in the store)
  const join = async (srv) => (await api(srv.url, 'POST', `/api/lectures/${id}/followers`, { body: {} })).json.token;
  const [a1, a2, b1, b2, b3] = [await join(a), await join(a), await join(b), await join(b), await join(b)];
  // free-storm's question at 1: swap_spare, barn_full or barn_empty; at 2: refill or no_refill
  const sent = [[a, a1, 'barn_empty'], [a, a2, 'barn_full'], [b, b1, 'barn_empty'], [b, b2, 'barn_empty'], [b, b3, 'swap_spare']];
  for (const [srv, t, choice] of sent) {
    const r = await answer(srv, id, { at: 1, choice, token: t });
    assert.equal(r.status, 200, r.text);
  }
  // another question, on B only
  assert.equal((await answer(b, id, { at: 2, choice: 'refill', token: b1 })).status, 200);
  const want = { at: 1, counts: { barn_empty: 3, barn_full: 1, swap_spare: 1 }, total: 5, followers: 0 };
  for (const srv of [a, b]) {
    const r = await tally(srv, id, 1, token);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, want);
  }
  assert.deepEqual((await tally(a, id, 2, token)).json, { at: 2, counts: { refill: 1 }, total: 1, followers: 0 });

  // a follower of A changes its answer through B: replaced, not added
  assert.equal((await answer(b, id, { at: 1, choice: 'swap_spare', token: a1 })).status, 200);
  const after = { at: 1, counts: { barn_empty: 2, barn_full: 1, swap_spare: 2 }, total: 5, followers: 0 };
  assert.deepEqual((await tally(a, id, 1, token)).json, after);
  assert.deepEqual((await tally(b, id, 1, token)).json, after);
  // still the lecture's token on either server
  assert.equal((await tally(b, id, 1)).status, 403);
  assert.equal((await tally(b, id, 1, 'f'.repeat(32))).status, 403);
});
