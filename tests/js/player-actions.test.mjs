// Unit tests of the player's actions that boot and views call instead of
// changing its state (web/js/state.js showError, toMarker).  No server:
// the player has no session.  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPlayer } from '../../web/js/state.js';

test('showError puts the message in the state and tells the subscribers; dismiss clears it', () => {
  const p = createPlayer();
  const seen = [];
  p.subscribe((m) => seen.push(m.error));
  p.showError(new Error('the server is gone'));
  assert.equal(p.get().error, 'the server is gone');
  p.showError('plain words');
  assert.equal(p.get().error, 'plain words');
  assert.deepEqual(seen, ['the server is gone', 'plain words']);
  p.dismiss();
  assert.equal(p.get().error, null);
});

test('toMarker without a session or markers does nothing', async () => {
  const p = createPlayer();
  let emitted = 0;
  p.subscribe(() => emitted++);
  assert.equal(p.toMarker(1), undefined);
  assert.equal(p.toMarker(-1), undefined);
  assert.equal(p.get().at, 0);
  assert.equal(emitted, 0);
});
