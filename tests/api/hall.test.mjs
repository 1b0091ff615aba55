// tests/api/hall.test.mjs: a lecture hall of 300 behind one NAT, at the
// server's default limits (docs/cli.md, "serve"): every follower joins (its
// token), opens the lecture's stream and fetches the state of each position
// it hears on a connection of its own, as a page does, while the presenter
// plays 16 steps a second; then every follower answers the first question.
// All from one address (127.0.0.1).  No presenter move may be refused or
// lost, no follower request may get a 429, and every follower ends on the
// presenter's last step.  tests/abuse checks that one client flooding the
// same routes is still refused.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';

import { serverFixture } from './lib.mjs';

const SEATS = 300, SPEED = 16, PLAY_S = 3;

const fx = serverFixture();

/** One request on @agent: {status, json}, or {status: 0, error} when the connection failed. */
function request(agent, method, path, { body, token } = {}) {
  return new Promise((resolve) => {
    const headers = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = http.request(new URL(path, fx.srv.url), { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        let json = null;
        try { json = JSON.parse(text); } catch { json = null; }
        resolve({ status: res.statusCode, json, text });
      });
    });
    req.on('error', (error) => resolve({ status: 0, error: String(error) }));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/**
 * A seat: its own connection for the stream and one for its fetches (a
 * page's), fetching the state of the latest position announced, one at a
 * time.  Every status it got goes into @statuses.
 */
function seat(lecture, token, statuses) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const streamAgent = new http.Agent({ keepAlive: false, maxSockets: 1 });
  const f = { token, shown: -1, target: null, busy: false, heard: 0, errors: [], req: null };
  const pump = async () => {
    if (f.busy) return;
    f.busy = true;
    while (f.target && f.target.at !== f.shown) {
      const want = f.target;
      const r = await request(agent, 'GET', `/api/sessions/${want.session}/state?at=${want.at}`);
      statuses.push(r.status);
      if (r.status !== 200) { f.errors.push(r.error || r.text.slice(0, 200)); break; }
      f.shown = r.json.at;
    }
    f.busy = false;
  };
  f.opened = new Promise((resolve) => {
    f.req = http.get(new URL(`/api/lectures/${lecture}/follow`, fx.srv.url), { agent: streamAgent }, (res) => {
      statuses.push(res.statusCode);
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk) => {
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const data = /^data: (.*)$/m.exec(buf.slice(0, i));
          buf = buf.slice(i + 2);
          if (!data) continue;
          f.heard++;
          f.target = JSON.parse(data[1]);
          resolve();
          pump();
        }
      });
    });
    f.req.on('error', (e) => { f.errors.push(String(e)); resolve(); });
  });
  f.agent = agent;
  f.close = () => { f.req.destroy(); agent.destroy(); streamAgent.destroy(); };
  return f;
}

test(`${SEATS} followers behind one address at ${SPEED} steps/s, default limits: no move lost, no 429`, async (t) => {
  const presenter = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const s = await request(presenter, 'POST', '/api/sessions', { body: { scenario: 'free-storm' } });
  assert.equal(s.status, 201, s.text);
  const l = await request(presenter, 'POST', '/api/lectures', { body: { session: s.json.id } });
  assert.equal(l.status, 201, l.text);
  const end = s.json.events;
  assert.ok(end > SPEED * PLAY_S, `${end} events`);

  const statuses = [];
  const seats = [];
  try {
    // the hall arrives: each joins (its token), then opens the stream
    for (let k = 0; k < SEATS; k += 50) {
      const joins = await Promise.all(Array.from({ length: Math.min(50, SEATS - k) }, () =>
        request(undefined, 'POST', `/api/lectures/${l.json.id}/followers`, { body: {} })));
      for (const j of joins) {
        assert.equal(j.status, 201, `a join: ${j.status} ${j.text ?? j.error}`);
        seats.push(seat(l.json.id, j.json.token, statuses));
      }
    }
    await Promise.all(seats.map((f) => f.opened));
    assert.deepEqual(seats.flatMap((f) => f.errors), [], 'every stream opened');

    // the presenter plays: the page's state, then its move, every 1/16 s
    const moves = [];
    const t0 = Date.now();
    for (let at = 1; at <= SPEED * PLAY_S; at++) {
      const st = await request(presenter, 'GET', `/api/sessions/${s.json.id}/state?at=${at}`);
      const mv = await request(presenter, 'POST', `/api/sessions/${s.json.id}/step`,
        { body: { to: at, state: false }, token: s.json.token });
      moves.push([at, st.status, mv.status, mv.error ?? '']);
      await sleep(Math.max(0, t0 + (at * 1000) / SPEED - Date.now()));
    }
    const lost = moves.filter(([, a, b]) => a !== 200 || b !== 200);
    assert.deepEqual(lost, [], 'every presenter move answered 200');
    const last = SPEED * PLAY_S;

    // every follower ends on the presenter's last step
    const until = Date.now() + 20000;
    while (seats.some((f) => f.shown !== last && !f.errors.length) && Date.now() < until) await sleep(50);
    assert.deepEqual(seats.flatMap((f) => f.errors), [], 'no follower request failed');
    const behind = seats.filter((f) => f.shown !== last).length;
    assert.equal(behind, 0, `${behind} followers not on step ${last}`);

    // the question at 1: every seat answers at once
    const answers = await Promise.all(seats.map((f) => request(f.agent, 'POST', `/api/lectures/${l.json.id}/answers`,
      { body: { at: 1, choice: 'barn_full', token: f.token } })));
    for (const a of answers) statuses.push(a.status);
    const tally = await request(presenter, 'GET', `/api/lectures/${l.json.id}/answers?at=1`, { token: l.json.token });
    assert.equal(tally.json?.total, SEATS, tally.text);

    const refused = statuses.filter((x) => x !== 200).length;
    t.diagnostic(`${statuses.length} follower requests, ${refused} not 200; ` +
      `messages heard per follower: min ${Math.min(...seats.map((f) => f.heard))}`);
    assert.equal(statuses.filter((x) => x === 429).length, 0, 'no 429');
    assert.equal(refused, 0, `statuses: ${[...new Set(statuses)]}`);
  } finally {
    for (const f of seats) f.close();
    presenter.destroy();
  }
});
