// tests/api/durability.test.mjs: kill -9 the server while snapshots are
// being saved, again and again; after every restart each snapshot whose
// save was acknowledged (201) is there, and (SQLite) PRAGMA integrity_check
// is ok.  On the PostgreSQL store (tests/pg/run.sh) the same kills hit the
// server that writes, with the database running on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';

import { api, freshDb, isPg, session, sqlite, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const ROUNDS = Number(process.env.SLUBLAB_DURABILITY_ROUNDS || 25);
const BUDGET_MS = 30000;

test(`snapshots survive SIGKILL (${ROUNDS} rounds)`, async (t) => {
  const db = freshDb(dir, 'kill');
  let srv = await start({ dir, db });
  const s = await session(srv.url);
  const acked = new Set();
  const t0 = Date.now();
  let rounds = 0;

  for (; rounds < ROUNDS && Date.now() - t0 < BUDGET_MS; rounds++) {
    let stop = false;
    const client = async (k) => {
      while (!stop) {
        try {
          const r = await api(srv.url, 'POST', '/api/snapshots', {
            body: { session: s.id, at: (k * 7 + acked.size) % 36, title: `round ${rounds}` },
          });
          if (r.status === 201) acked.add(r.json.id);
        } catch {
          return; // the server is gone
        }
      }
    };
    const clients = [0, 1, 2, 3].map(client);
    await new Promise((r) => setTimeout(r, 80 + Math.floor(Math.random() * 300)));
    const killed = await srv.kill();
    stop = true;
    await Promise.all(clients);
    assert.equal(killed.signal, 'SIGKILL');

    if (!isPg(db)) assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok', `round ${rounds}`);
    const stored = new Set(sqlite(db, 'SELECT id FROM snapshots').split('\n').filter(Boolean));
    for (const id of acked) assert.ok(stored.has(id), `round ${rounds}: acknowledged snapshot ${id} is lost`);
    srv = await start({ dir, db });
  }
  t.diagnostic(`${acked.size} snapshots acknowledged over ${rounds} kills`);
  assert.ok(acked.size > rounds, `saves were acknowledged (${acked.size} in ${rounds} rounds)`);
  // the last server can read them all
  const ids = [...acked];
  for (const id of ids.slice(-5)) {
    const r = await api(srv.url, 'GET', `/api/snapshots/${id}`);
    assert.equal(r.status, 200);
    assert.equal(r.json.status, 'verified');
  }
  await srv.stop();
  assert.ok(Number(sqlite(db, 'SELECT count(*) FROM snapshots')) >= acked.size);
  if (!isPg(db)) assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok');
});

test('the presenter\'s position survives SIGKILL: every acknowledged move is stored', async () => {
  const db = freshDb(dir, 'moves');
  let srv = await start({ dir, db });
  const s = await session(srv.url);
  const end = s.events;
  for (let round = 0; round < 5; round++) {
    let last = null;
    let pending = null; // the move sent but not yet answered: it may be stored too
    let stop = false;
    const presenter = (async () => {
      for (let i = 0; !stop; i++) {
        const to = (round * 13 + i * 7) % (end + 1);
        pending = to;
        try {
          const r = await api(srv.url, 'POST', `/api/sessions/${s.id}/step`, { token: s.token, body: { to, state: i % 2 === 0 } });
          if (r.status === 200) last = r.json.position;
          pending = null;
        } catch {
          return; // the server is gone
        }
      }
    })();
    // kill at a random moment once moves are being acknowledged (a loaded
    // machine may take a while to answer the first)
    for (let w = 0; last === null && w < 200; w++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 250)));
    await srv.kill();
    stop = true;
    await presenter;
    assert.notEqual(last, null, `round ${round}: moves were acknowledged`);
    srv = await start({ dir, db });
    const got = (await api(srv.url, 'GET', `/api/sessions/${s.id}`)).json.position;
    assert.ok(got === last || got === pending,
      `round ${round}: the last acknowledged position (${last}) or the move in flight (${pending}), not ${got}`);
  }
  await srv.stop();
});
