// Unit tests of what the trace dialog (web/js/views/trace.js) says of a
// running job, phase by phase: the browser test sees only the phases its
// polls happen to catch, and a fast build may pass between two polls.
// Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobStatus } from '../../web/js/views/trace.js';

test('replaying: the share of the upload replayed', () => {
  assert.deepEqual(jobStatus({ state: 'replaying', progress: 0.25, phase_progress: 0.5 }),
    { text: 'Replaying the trace: 50%', phase: 'replaying', share: 0.5 });
  // an older server gives only progress
  assert.equal(jobStatus({ state: 'replaying', progress: 0.259 }).text, 'Replaying the trace: 25%');
});

test('building: the operations applied of those recorded, with the phase share', () => {
  assert.deepEqual(jobStatus({ state: 'building', progress: 1, phase_progress: 0.3, ops: 3072, ops_total: 10240 }),
    { text: 'Building the session: 30% (3072 of 10240 operations)', phase: 'building', share: 0.3 });
  // before the replay said how many operations it recorded
  assert.equal(jobStatus({ state: 'building', progress: 1, phase_progress: 0, ops: 0, ops_total: 0, events: 5000 }).text,
    'Building the session from 5000 events…');
});

test('done and failed jobs leave the status to the caller', () => {
  assert.equal(jobStatus({ state: 'done', progress: 1, phase_progress: 1 }), null);
  assert.equal(jobStatus({ state: 'failed', progress: 0.4 }), null);
});
