// POST /api/sessions?first=1 (docs/api.md): the new session's answer also
// carries what GET /api/sessions/{id} and GET .../state?at=0 answer, so a
// page opens it in one round trip; without the query, the answer is as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, serverFixture, isError } from './lib.mjs';

const fx = serverFixture();

const post = (query, body) => api(fx.srv.url, 'POST', `/api/sessions${query}`, { body });

for (const scenario of ['default', 'maple-prefill-kfree-rcu']) {
  test(`${scenario}: ?first=1 answers the session's description and its state at 0 beside the token`, async () => {
    const r = await post('?first=1', { scenario });
    assert.equal(r.status, 201, r.text);
    const { session, state, ...created } = r.json;
    assert.equal(typeof created.token, 'string');
    assert.equal(created.position, 0);
    const info = await api(fx.srv.url, 'GET', `/api/sessions/${created.id}`);
    const at0 = await api(fx.srv.url, 'GET', `/api/sessions/${created.id}/state?at=0`);
    assert.equal(info.status, 200);
    assert.equal(at0.status, 200);
    // memory is the session's live use, which the state just made grew;
    // checkpoints count the run's stored images, which its keeper writes
    // after the answer (server/session/keeper.c)
    const still = ({ memory, checkpoints, ...rest }) => rest;
    assert.deepEqual(still(session), still(info.json));
    assert.equal(session.memory.limit, info.json.memory.limit);
    assert.deepEqual(state, at0.json);
    assert.ok(!('token' in session), 'the description carries no token');
  });
}

test('without ?first, or with first=0, the answer has neither', async () => {
  for (const q of ['', '?first=0']) {
    const r = await post(q, { scenario: 'default' });
    assert.equal(r.status, 201, r.text);
    assert.ok(!('session' in r.json) && !('state' in r.json), `${q}: ${r.text}`);
    assert.equal(typeof r.json.token, 'string');
  }
});

test('?first= other than 0 or 1 is a 400, and no session is made', async () => {
  const before = (await api(fx.srv.url, 'GET', '/api/sessions')).json;
  for (const q of ['?first=2', '?first=yes']) {
    const r = await post(q, { scenario: 'default' });
    assert.ok(isError(r, 'bad_request'), `${q}: ${r.status} ${r.text}`);
  }
  const after = (await api(fx.srv.url, 'GET', '/api/sessions')).json;
  assert.equal(after.total ?? after.sessions.length, before.total ?? before.sessions.length);
});
