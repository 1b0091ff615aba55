// tests/api/follow-thread.test.mjs: the follow hub's thread, which writes
// the presenter's position to every follower's stream, runs at the priority
// of the connection threads that answer those followers' state fetches, not
// below it: at nice 19 any busy process on the machine held a hall's
// messages back for seconds (docs/benchmarks.md, "Followers of a
// presenter").  Read from /proc, so Linux only.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { test } from 'node:test';

import { serverFixture } from './lib.mjs';

const fx = serverFixture();

/** [{tid, name, nice}] of the server's threads. */
function threads(pid) {
  return fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
    const name = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // the fields after "(comm) " start at field 3 (state); nice is field 19
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { tid: Number(tid), name, nice: Number(rest[19 - 3]) };
  });
}

test('the follow thread runs at the connection threads\' priority while it serves a follower', { skip: !fs.existsSync('/proc/self/task') }, async () => {
  const res = await fetch(`${fx.srv.url}/api/sessions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: 'free-storm' }),
  });
  assert.equal(res.status, 201);
  const s = await res.json();
  // a follower's stream, its first message read: the hub thread holds it
  const stream = await new Promise((ok, fail) => {
    const req = http.get(`${fx.srv.url}/api/sessions/${s.id}/follow`, (r) => {
      r.once('data', () => ok(req));
    });
    req.on('error', fail);
  });
  try {
    const all = threads(fx.srv.proc.pid);
    const main = all.find((t) => t.tid === fx.srv.proc.pid);
    // none below the engine's workers (5 above the server's own nice value), which run the presenter's step,
    // but the keeper, which stores runs' images after their opens answered (server/session/keeper.c)
    assert.deepEqual(all.filter((t) => t.nice > main.nice + 5 && t.name !== 'slublab-keeper'), [],
      `no thread at a nice value more than 5 above the server's ${main.nice}`);
    const hub = all.filter((t) => t.name === 'slublab-follow');
    assert.equal(hub.length, 1, `one thread named slublab-follow among ${JSON.stringify(all)}`);
    assert.equal(hub[0].nice, main.nice, 'the follow thread\'s nice value is the main thread\'s');
  } finally {
    stream.destroy();
  }
});
