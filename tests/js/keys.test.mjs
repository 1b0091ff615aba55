// Unit tests of web/js/keys.js: the shortcuts index.html lists, in the lab
// and in the compare view, and where keys belong to the focused control.
// Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { keyCommand, focusKind, handsBack } from '../../web/js/keys.js';

const k = (key, o = {}) => ({ key, ...o });
const cmd = (ev, page = 'lab', on = null) => {
  const c = keyCommand(ev, page, on);
  return c && [c.target, c.name, ...c.args];
};

test('the lab\'s keys drive the player', () => {
  assert.deepEqual(cmd(k(' ')), ['player', 'toggle']);
  assert.deepEqual(cmd(k('ArrowRight')), ['player', 'step', 1, 'event']);
  assert.deepEqual(cmd(k('ArrowLeft')), ['player', 'step', -1, 'event']);
  assert.deepEqual(cmd(k('ArrowRight', { shiftKey: true })), ['player', 'step', 1, 'op']);
  assert.deepEqual(cmd(k('ArrowLeft', { shiftKey: true })), ['player', 'step', -1, 'op']);
  assert.deepEqual(cmd(k('Home')), ['player', 'home']);
  assert.deepEqual(cmd(k('End')), ['player', 'endPos']);
  for (const key of ['+', '=']) assert.deepEqual(cmd(k(key)), ['player', 'faster']);
  for (const key of ['-', '_']) assert.deepEqual(cmd(k(key)), ['player', 'slower']);
  assert.deepEqual(cmd(k('b')), ['player', 'runToBreakpoint']);
  assert.deepEqual(cmd(k('n')), ['player', 'toMarker', 1]);
  assert.deepEqual(cmd(k('p')), ['player', 'toMarker', -1]);
  assert.equal(cmd(k('x')), null);
  assert.equal(cmd(k('constructor')), null);
});

test('every lab command is a method of the player', async () => {
  const { createPlayer } = await import('../../web/js/state.js');
  const player = createPlayer();
  for (const key of [' ', 'ArrowRight', 'ArrowLeft', 'Home', 'End', '+', '=', '-', '_', 'b', 'n', 'p']) {
    const c = keyCommand(k(key), 'lab');
    assert.equal(typeof player[c.name], 'function', `${key}: player.${c.name}`);
  }
});

test('the compare view steps both sides by operation', () => {
  assert.deepEqual(cmd(k('ArrowRight'), 'compare'), ['compare', 'step', 1]);
  assert.deepEqual(cmd(k('ArrowLeft'), 'compare'), ['compare', 'step', -1]);
  assert.deepEqual(cmd(k('ArrowRight', { shiftKey: true }), 'compare'), ['compare', 'step', 1]);
  assert.deepEqual(cmd(k('Home'), 'compare'), ['compare', 'home']);
  assert.deepEqual(cmd(k('End'), 'compare'), ['compare', 'end']);
  for (const key of [' ', 'n', 'b', '+']) assert.equal(cmd(k(key), 'compare'), null, key);
});

test('the scenario editor has no shortcuts; modifiers are the browser\'s', () => {
  for (const key of [' ', 'ArrowRight', 'Home', 'n']) assert.equal(cmd(k(key), 'scenario'), null);
  for (const mod of ['ctrlKey', 'metaKey', 'altKey']) {
    assert.equal(cmd(k('ArrowRight', { [mod]: true })), null, mod);
    assert.equal(cmd(k('ArrowRight', { [mod]: true }), 'compare'), null, mod);
  }
});

test('keys typed in a field are the field\'s; Space on the scrubber or a button still plays; a tab\'s arrows are the tab list\'s', () => {
  assert.equal(cmd(k('ArrowRight'), 'lab', 'field'), null);
  assert.equal(cmd(k(' '), 'lab', 'field'), null);
  assert.equal(cmd(k('n'), 'lab', 'field'), null);
  assert.equal(cmd(k('ArrowLeft'), 'compare', 'field'), null);
  assert.equal(cmd(k('ArrowRight'), 'lab', 'range'), null, 'the scrubber steps itself');
  assert.deepEqual(cmd(k(' '), 'lab', 'range'), ['player', 'toggle']);
  // a button just clicked keeps the focus: the keys are still the player's
  assert.deepEqual(cmd(k(' '), 'lab', null), ['player', 'toggle']);
  assert.deepEqual(cmd(k('ArrowRight'), 'lab', null), ['player', 'step', 1, 'event']);
  assert.deepEqual(cmd(k('Home'), 'compare', null), ['compare', 'home']);
  // on a tab, ←/→ move between the tabs (the ARIA tabs pattern); the rest still works
  assert.equal(cmd(k('ArrowRight'), 'lab', 'tab'), null);
  assert.equal(cmd(k('ArrowLeft', { shiftKey: true }), 'lab', 'tab'), null);
  assert.deepEqual(cmd(k(' '), 'lab', 'tab'), ['player', 'toggle']);
  assert.deepEqual(cmd(k('End'), 'lab', 'tab'), ['player', 'endPos']);
});

test('focusKind tells fields, the scrubber and tabs apart; a button is no field', () => {
  class El {
    constructor(o) { Object.assign(this, o); }
    closest(sel) { return this.field && sel.includes('input') ? this : null; }
    getAttribute(name) { return name === 'role' ? this.role ?? null : null; }
  }
  class Input extends El {}
  class Button extends El {}
  const win = { HTMLInputElement: Input, HTMLButtonElement: Button };
  assert.equal(focusKind(null, win), null);
  assert.equal(focusKind(new Input({ field: true, type: 'text' }), win), 'field');
  assert.equal(focusKind(new El({ field: true }), win), 'field');
  assert.equal(focusKind(new Input({ field: true, type: 'range' }), win), 'range');
  assert.equal(focusKind(new Button({ field: false }), win), null);
  assert.equal(focusKind(new Button({ field: false, role: 'tab' }), win), 'tab');
  assert.equal(focusKind(new El({ field: false, role: 'button' }), win), null);
  assert.equal(focusKind(new El({ field: false }), win), null);
  assert.equal(focusKind({}, win), null, 'a target without closest (the document)');
});

test('the page lists every lab shortcut', () => {
  const html = readFileSync(new URL('../../web/index.html', import.meta.url), 'utf8');
  const keys = html.slice(html.indexOf('id="keys-title"'), html.indexOf('</dl>', html.indexOf('id="keys-title"')));
  for (const kbd of ['Space', '←', '→', 'Shift', 'Home', 'End', '+', '−', 'n', 'p', 'b']) assert.ok(keys.includes(`<kbd>${kbd}</kbd>`), kbd);
});

test('on a menu or a checkbox the lab\'s keys still work; a change there hands the focus back, not in the scenario editor', () => {
  // before: the focused menu took → (the next scenario) and the checkbox took Space (unticked)
  assert.deepEqual(cmd(k('ArrowRight'), 'lab', 'menu'), ['player', 'step', 1, 'event']);
  assert.deepEqual(cmd(k(' '), 'lab', 'check'), ['player', 'toggle']);
  assert.deepEqual(cmd(k('ArrowLeft'), 'compare', 'menu'), ['compare', 'step', -1]);
  assert.deepEqual(cmd(k('?'), 'lab', 'menu'), ['page', 'help']);
  assert.deepEqual(cmd(k('?'), 'compare'), ['page', 'help']);
  assert.equal(cmd(k('?'), 'lab', 'field'), null, 'a ? typed in a field is the field\'s');
  class El { constructor(o) { Object.assign(this, o); } closest(sel) { return this.field && sel.includes('input') ? this : sel.includes('#scenario-view') && this.editor ? this : null; } getAttribute() { return null; } }
  class Input extends El {}
  class Select extends El {}
  const win = { HTMLInputElement: Input, HTMLSelectElement: Select };
  assert.equal(focusKind(new Select({ field: true }), win), 'menu');
  assert.equal(focusKind(new Input({ field: true, type: 'checkbox' }), win), 'check');
  assert.equal(focusKind(new Input({ field: true, type: 'radio' }), win), 'check');
  assert.equal(handsBack(new Select({ field: true }), 'menu'), true);
  assert.equal(handsBack(new Input({ field: true, type: 'checkbox' }), 'check'), true);
  assert.equal(handsBack(new Input({ field: true, type: 'text' }), 'field'), false);
  assert.equal(handsBack(new Select({ field: true, editor: true }), 'menu'), false, 'the scenario editor keeps its focus');
});
