// tests/api/lecture-view.test.mjs: the presenter's view of a lecture
// (docs/api.md, "PUT /api/lectures/{id}/view"): its breakpoints and theme,
// set with the lecture's token, shown in GET /api/lectures/ID, and
// announced on the follow stream ("view": N) so followers fetch it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';

import { api, isError, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
let srv;
before(async () => { srv = await start({ dir }); });
after(async () => { await srv?.stop(); fs.rmSync(dir, { recursive: true, force: true }); });

const view = (id, body, token) => api(srv.url, 'PUT', `/api/lectures/${id}/view`, { body, token });

test('the view: set with the lecture\'s token, read by anyone, announced to followers', async () => {
  const l = (await api(srv.url, 'POST', '/api/lectures', { body: {} })).json;
  assert.equal((await api(srv.url, 'GET', `/api/lectures/${l.id}`)).json.view, undefined, 'none before');
  // a follower listening
  const ctl = new AbortController();
  const stream = await fetch(`${srv.url}/api/lectures/${l.id}/follow`, { signal: ctl.signal });
  const reader = stream.body.getReader();
  let text = '';
  const want = { breakpoints: ['notable:new_slab', 'counter:barn_put_fail'], theme: 'projector' };
  let r = await view(l.id, want, l.token);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json, want);
  const until = Date.now() + 5000;
  while (!/"view":1/.test(text) && Date.now() < until) text += new TextDecoder().decode((await reader.read()).value);
  ctl.abort();
  assert.match(text, /"view":1/, 'the followers hear of it');
  assert.deepEqual((await api(srv.url, 'GET', `/api/lectures/${l.id}`)).json.view, want);

  r = await view(l.id, want);
  assert.equal(r.status, 403);
  assert.ok(isError(r, 'forbidden'));
  const m = (await api(srv.url, 'POST', '/api/lectures', { body: {} })).json;
  assert.equal((await view(l.id, want, m.token)).status, 403);
  assert.equal((await view('aaaaaaaaaa', want, l.token)).status, 404);
  for (const [body, why] of [
    [{ theme: 'dark' }, /theme/], [{ breakpoints: 'x' }, /breakpoints/], [{ breakpoints: ['a b'] }, /breakpoints/],
    [{ breakpoints: Array(17).fill('k') }, /at most 16/], [{ extra: 1 }, /extra/], [[1], /expected an object/]]) {
    r = await view(l.id, body, l.token);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.match(r.json.error.message, why);
  }
  assert.deepEqual((await api(srv.url, 'GET', `/api/lectures/${l.id}`)).json.view, want, 'unchanged by the refused ones');
});
