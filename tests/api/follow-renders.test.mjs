// tests/api/follow-renders.test.mjs: a class's state fetches at the
// presenter's position cost the server one render, the one the presenter's
// page or move already made (docs/api.md, "GET /api/health"'s
// states_rendered): 100 followers fetching the position they heard get the
// same bytes from the session's state cache, however many ask at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { serverFixture } from './lib.mjs';

const FOLLOWERS = 100;
const fx = serverFixture();

const rendered = async () => {
  const h = await (await fetch(`${fx.srv.url}/api/health`)).json();
  assert.equal(typeof h.states_rendered, 'number', JSON.stringify(h));
  return h.states_rendered;
};

async function call(method, path, { body, token } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(fx.srv.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
}

test(`${FOLLOWERS} followers' state fetches of the presenter's position cost one render`, async () => {
  const c = await call('POST', '/api/sessions', { body: { scenario: 'free-storm' } });
  assert.equal(c.status, 201, c.text);
  const s = JSON.parse(c.text);
  const fetchAll = async (at) => {
    const rs = await Promise.all(Array.from({ length: FOLLOWERS }, () => call('GET', `/api/sessions/${s.id}/state?at=${at}`)));
    assert.deepEqual(rs.filter((r) => r.status !== 200), [], 'every follower got its state');
    assert.equal(new Set(rs.map((r) => r.text)).size, 1, 'the same bytes for every follower');
    return JSON.parse(rs[0].text);
  };

  // the presenter's move renders the state it answers with
  let n0 = await rendered();
  let m = await call('POST', `/api/sessions/${s.id}/step`, { body: { to: 5 }, token: s.token });
  assert.equal(m.status, 200, m.text);
  assert.equal((await fetchAll(5)).at, 5);
  assert.equal(await rendered() - n0, 1, 'the move\'s render, none for the followers');

  // the page's own fetch renders, its move (state: false) publishes
  n0 = await rendered();
  assert.equal((await call('GET', `/api/sessions/${s.id}/state?at=9`)).status, 200);
  m = await call('POST', `/api/sessions/${s.id}/step`, { body: { to: 9, state: false }, token: s.token });
  assert.equal(m.status, 200, m.text);
  assert.equal((await fetchAll(9)).at, 9);
  assert.equal(await rendered() - n0, 1, 'the page\'s render, none for the followers');

  // a position nobody rendered yet, asked by the whole class at once: one render
  n0 = await rendered();
  m = await call('POST', `/api/sessions/${s.id}/step`, { body: { to: 12, state: false }, token: s.token });
  assert.equal(m.status, 200, m.text);
  assert.equal((await fetchAll(12)).at, 12);
  assert.equal(await rendered() - n0, 1, 'one render for the whole class');
});
