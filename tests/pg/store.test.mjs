// The store's own tests on PostgreSQL: tests/server/test_store.c runs its
// checkpoint tables (images, shared pages, their deletion with the last
// session naming them) on SQLite, and again on the server SLUBLAB_TEST_PG
// names.  Run by tests/pg/run.sh; the test program is built beside
// SLUBLAB_BIN.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

import { BIN, PG } from '../api/lib.mjs';

test('the checkpoint tables on PostgreSQL (test_store.c)', () => {
  assert.ok(PG, 'SLUBLAB_TEST_PG names a PostgreSQL server (tests/pg/run.sh)');
  const out = execFileSync(path.join(path.dirname(BIN), 'server_test_store'), {
    encoding: 'utf8', env: { ...process.env, SLUBLAB_TEST_PG: PG },
  });
  assert.match(out, /^ok +test_ckpt_rows$/m);
  assert.match(out, /\b0 failed\b/);
});
