// tests/api/lectures.test.mjs: a lecture, the presenter's resource that
// outlives sessions (docs/api.md, "Lectures"): made with a token, pointed
// at a session with that token only, described, and followed: its stream
// names the session, so a scenario switch reaches every follower.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { api, followStream, isError, schemaVersion, serverFixture, session, start } from './lib.mjs';

const fx = serverFixture();

/** Read the event stream @path of this file's server (lib.mjs's followStream()). */
const stream = (path) => followStream(fx.srv.url, path);

describe('lectures', () => {
  test('make, describe, point at a session with the token only', async () => {
    const a = await session(fx.srv.url);
    const c = await api(fx.srv.url, 'POST', '/api/lectures', { body: { session: a.id } });
    assert.equal(c.status, 201);
    assert.match(c.json.id, /^[a-z2-7]{10}$/);
    assert.match(c.json.token, /^[0-9a-f]{32}$/);
    assert.equal(c.json.session, a.id);
    assert.equal(c.json.position, 0);
    assert.equal(c.json.events, a.events);
    assert.deepEqual(c.json.links, { self: `/api/lectures/${c.json.id}`, stream: `/api/lectures/${c.json.id}/follow`, follow: `/?lecture=${c.json.id}` });

    const g = await api(fx.srv.url, 'GET', `/api/lectures/${c.json.id}`);
    assert.equal(g.status, 200);
    assert.equal(g.json.token, undefined, 'the token is given once');
    assert.equal(g.json.session, a.id);
    assert.equal(g.json.followers, 0);

    // the presenter steps: the lecture's position follows the session's
    await api(fx.srv.url, 'POST', `/api/sessions/${a.id}/step`, { token: a.token, body: { to: 9, state: false } });
    assert.equal((await api(fx.srv.url, 'GET', `/api/lectures/${c.json.id}`)).json.position, 9);

    const b = await session(fx.srv.url, { scenario: 'free-storm' });
    const noToken = await api(fx.srv.url, 'POST', `/api/lectures/${c.json.id}`, { body: { session: b.id } });
    assert.equal(noToken.status, 403);
    assert.ok(isError(noToken, 'forbidden'));
    const sessionToken = await api(fx.srv.url, 'POST', `/api/lectures/${c.json.id}`, { token: a.token, body: { session: b.id } });
    assert.equal(sessionToken.status, 403, "a session's token is not the lecture's");
    const set = await api(fx.srv.url, 'PUT', `/api/lectures/${c.json.id}`, { token: c.json.token, body: { session: b.id } });
    assert.equal(set.status, 200);
    assert.equal(set.json.session, b.id);
    assert.equal(set.json.events, b.events);
    assert.equal((await api(fx.srv.url, 'GET', `/api/lectures/${c.json.id}`)).json.session, b.id);
  });

  test('a lecture without a session; errors', async () => {
    const c = await api(fx.srv.url, 'POST', '/api/lectures', { body: {} });
    assert.equal(c.status, 201);
    assert.equal(c.json.session, null);
    assert.equal((await api(fx.srv.url, 'GET', '/api/lectures/aaaaaaaaaa')).status, 404);
    assert.equal((await api(fx.srv.url, 'GET', '/api/lectures/../x')).status, 404);
    assert.equal((await api(fx.srv.url, 'GET', '/api/lectures/aaaaaaaaaa/follow')).status, 404);
    assert.equal((await api(fx.srv.url, 'POST', '/api/lectures', { body: { session: 'zzzzzzzzzz' } })).status, 404);
    assert.equal((await api(fx.srv.url, 'POST', '/api/lectures', { body: { sesion: 'x' } })).status, 400);
    assert.equal((await api(fx.srv.url, 'POST', '/api/lectures', { raw: '{' })).status, 400);
    assert.equal((await api(fx.srv.url, 'POST', `/api/lectures/${c.json.id}`, { token: c.json.token, body: {} })).status, 400);
    assert.equal((await api(fx.srv.url, 'POST', `/api/lectures/${c.json.id}`, { token: c.json.token, body: { session: 'zzzzzzzzzz' } })).status, 404);
    assert.equal((await api(fx.srv.url, 'DELETE', `/api/lectures/${c.json.id}`)).status, 405);
  });

  test('followers of a lecture move with its position and to a new session', async () => {
    const a = await session(fx.srv.url);
    const c = (await api(fx.srv.url, 'POST', '/api/lectures', { body: { session: a.id } })).json;
    const f = await stream(`/api/lectures/${c.id}/follow`);
    assert.equal(f.r.status, 200);
    assert.match(f.r.headers.get('content-type'), /^text\/event-stream/);
    assert.equal(f.r.headers.get('x-accel-buffering'), 'no', 'a proxy passes the stream on unbuffered');
    await f.next((d) => d.session === a.id && d.at === 0);
    assert.equal((await api(fx.srv.url, 'GET', `/api/lectures/${c.id}`)).json.followers, 1);
    await api(fx.srv.url, 'POST', `/api/sessions/${a.id}/step`, { token: a.token, body: { to: 12, state: false } });
    await f.next((d) => d.session === a.id && d.at === 12);
    // a scenario switch: a new session
    const b = await session(fx.srv.url, { scenario: 'free-storm' });
    await api(fx.srv.url, 'POST', `/api/lectures/${c.id}`, { token: c.token, body: { session: b.id } });
    const m = await f.next((d) => d.session === b.id);
    assert.equal(m.at, 0);
    assert.equal(m.events, b.events);
    await api(fx.srv.url, 'POST', `/api/sessions/${b.id}/step`, { token: b.token, body: { to: 5, state: false } });
    await f.next((d) => d.session === b.id && d.at === 5);
    // the old session moving reaches the lecture's followers no more
    await api(fx.srv.url, 'POST', `/api/sessions/${a.id}/step`, { token: a.token, body: { to: 20, state: false } });
    await api(fx.srv.url, 'POST', `/api/sessions/${b.id}/step`, { token: b.token, body: { to: 6, state: false } });
    await f.next((d) => d.session === b.id && d.at === 6);
    assert.ok(!f.seen.some((d) => d.at === 20), 'the old session reached the lecture');
    f.close();
  });

  test('a lecture survives a restart: the same follow link, its session and position, its token', async () => {
    const a = await session(fx.srv.url);
    const c = (await api(fx.srv.url, 'POST', '/api/lectures', { body: { session: a.id } })).json;
    const b = await session(fx.srv.url, { scenario: 'free-storm' });
    assert.equal((await api(fx.srv.url, 'POST', `/api/lectures/${c.id}`, { token: c.token, body: { session: b.id } })).status, 200);
    await api(fx.srv.url, 'POST', `/api/sessions/${b.id}/step`, { token: b.token, body: { to: 7, state: false } });
    const none = (await api(fx.srv.url, 'POST', '/api/lectures', { body: {} })).json;

    assert.equal((await fx.srv.stop()).code, 0);
    fx.srv = await start({ dir: fx.dir, db: fx.srv.db });
    assert.equal(schemaVersion(fx.srv.db), '12');

    const g = await api(fx.srv.url, 'GET', `/api/lectures/${c.id}`);
    assert.equal(g.status, 200, g.text);
    assert.equal(g.json.session, b.id);
    assert.equal(g.json.position, 7, 'the position its session was stored at');
    assert.equal(g.json.events, b.events);
    assert.equal((await api(fx.srv.url, 'GET', `/api/lectures/${none.id}`)).json.session, null);
    // followers reconnect to the same stream and follow on
    const f = await stream(`/api/lectures/${c.id}/follow`);
    await f.next((d) => d.session === b.id && d.at === 7);
    await api(fx.srv.url, 'POST', `/api/sessions/${b.id}/step`, { token: b.token, body: { to: 9, state: false } });
    await f.next((d) => d.session === b.id && d.at === 9);
    // the presenter's token still points it; another is still refused
    assert.equal((await api(fx.srv.url, 'POST', `/api/lectures/${c.id}`, { token: none.token, body: { session: a.id } })).status, 403);
    assert.equal((await api(fx.srv.url, 'POST', `/api/lectures/${c.id}`, { token: c.token, body: { session: a.id } })).status, 200);
    await f.next((d) => d.session === a.id);
    f.close();
  });
});
