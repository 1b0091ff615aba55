// Unit tests of web/js/views/scenariomenu.js's menuChoice: which entry the
// header's Scenario menu shows for the session's scenario.
// Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { menuChoice } from '../../web/js/views/scenariomenu.js';

const SHIPPED = ['default', 'free-storm', 'fresh-slab-fill'];

test('a shipped scenario shows as itself', () => {
  assert.deepEqual(menuChoice('free-storm', SHIPPED, false), { value: 'free-storm', label: '(custom)' });
  assert.deepEqual(menuChoice('free-storm', SHIPPED, null), { value: 'free-storm', label: '(custom)' });
});

test('a scenario of one\'s own shows as custom, with its name, even under a shipped name', () => {
  assert.deepEqual(menuChoice('mine', SHIPPED, true), { value: '', label: '(custom: mine)' });
  assert.deepEqual(menuChoice('default', SHIPPED, true), { value: '', label: '(custom: default)' });
  // a link to a session of an unknown scenario: custom by its name
  assert.deepEqual(menuChoice('mine', SHIPPED, null), { value: '', label: '(custom: mine)' });
});

test('before the list of shipped scenarios arrives, or with no session, nothing is claimed', () => {
  assert.deepEqual(menuChoice('', SHIPPED, null), { value: '', label: '(custom)' });
  assert.deepEqual(menuChoice('default', [], null), { value: '', label: '(custom: default)' });
});
