// tests/api/durability.test.mjs: kill -9 the server while snapshots are
// being saved, again and again; after every restart each snapshot whose
// save was acknowledged (201) is there, and PRAGMA integrity_check is ok.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { api, session, sqlite, start, tmpdir } from './lib.mjs';

const dir = tmpdir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const ROUNDS = Number(process.env.SLUBLAB_DURABILITY_ROUNDS || 25);
const BUDGET_MS = 30000;

test(`snapshots survive SIGKILL (${ROUNDS} rounds)`, async (t) => {
  const db = path.join(dir, 'kill.db');
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

    assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok', `round ${rounds}`);
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
  const list = await api(srv.url, 'GET', '/api/snapshots?limit=1000');
  assert.ok(list.json.total >= acked.size);
  await srv.stop();
  assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok');
});
