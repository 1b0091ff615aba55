// tests/api/follow-state.test.mjs: a follower hears the presenter's move
// with the state there (docs/api.md, "GET /api/sessions/ID/follow"): when
// the presenter's page rendered the position before moving to it, the
// stream's message carries that state, the same as GET .../state?at=N
// answers, so a follower shows it without a request of its own; a position
// nobody rendered comes without one, and the followers cost no render.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { api, followStream, serverFixture, session } from './lib.mjs';

const fx = serverFixture();

const rendered = async () => (await api(fx.srv.url, 'GET', '/api/health')).json.states_rendered;

/** The state the page fetched at @at, then its move there (state: false). */
async function pageMoves(s, at) {
  const st = await api(fx.srv.url, 'GET', `/api/sessions/${s.id}/state?at=${at}`);
  assert.equal(st.status, 200);
  const m = await api(fx.srv.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to: at, state: false } });
  assert.equal(m.status, 200);
  return st.json;
}

test('a follower who joins gets the state rendered there in its first message, a state of several KiB too', async () => {
  const s = await session(fx.srv.url, { scenario: 'order-fallback' });
  const state = await pageMoves(s, 100);
  assert.ok(JSON.stringify(state).length > 4096, 'a state bigger than a first block of 4 KiB');
  const f = await followStream(fx.srv.url, `/api/sessions/${s.id}/follow`);
  const m = await f.next((d) => d.at === 100);
  assert.deepEqual(m.state, state, 'the first message carries the state GET .../state?at=100 answers');
  f.close();
});

describe('follow messages carry the state', () => {
  for (const [what, path] of [
    ['a session\'s followers', async (s) => `/api/sessions/${s.id}/follow`],
    ['a lecture\'s followers', async (s) => {
      const c = await api(fx.srv.url, 'POST', '/api/lectures', { body: { session: s.id } });
      assert.equal(c.status, 201);
      return `/api/lectures/${c.json.id}/follow`;
    }],
  ]) {
    test(`${what} get the state the presenter's page rendered, and none it did not`, async () => {
      const s = await session(fx.srv.url, { scenario: 'free-storm' });
      const f = await followStream(fx.srv.url, await path(s));
      await f.next((d) => d.at === 0);

      const state = await pageMoves(s, 7);
      const m = await f.next((d) => d.at === 7);
      assert.ok(m.state, `the message of a rendered position carries its state: ${JSON.stringify(m).slice(0, 200)}`);
      assert.deepEqual(m.state, state, 'the state GET .../state?at=7 answers');

      // a position nobody rendered: the message names it, the followers fetch it
      const n0 = await rendered();
      const mv = await api(fx.srv.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to: 11, state: false } });
      assert.equal(mv.status, 200);
      const bare = await f.next((d) => d.at === 11);
      assert.equal(bare.state, undefined, 'no state rendered for the followers');
      assert.equal(await rendered(), n0, 'the move rendered nothing');

      // a move that answers with its state (the CLI's, a keyboard step) hands it on too
      const step = await api(fx.srv.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to: 13 } });
      assert.equal(step.status, 200);
      assert.deepEqual((await f.next((d) => d.at === 13)).state, (await api(fx.srv.url, 'GET', `/api/sessions/${s.id}/state?at=13`)).json);
      f.close();
    });
  }
});
