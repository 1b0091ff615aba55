// The web UI's rules (STYLE.md, "How we write the web UI") that a grep can
// check: views take a root element and never query the document; only
// web/js/state.js changes the player's state; only main.js reads the
// globals document and window.  Run: node --test tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';

const JS = new URL('../../web/js/', import.meta.url);
const VIEWS = new URL('views/', JS);
const source = (dir, name) => readFileSync(new URL(name, dir), 'utf8')
  // comments may name anything
  .replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
const views = readdirSync(VIEWS).filter((f) => f.endsWith('.js'));
const modules = readdirSync(JS).filter((f) => f.endsWith('.js'));

test('there are views to check', () => {
  assert.ok(views.length >= 15, views.join(' '));
  assert.ok(views.includes('compare.js'));
});

test('no view mentions document.', () => {
  for (const f of views) {
    const src = readFileSync(new URL(f, VIEWS), 'utf8');
    assert.ok(!/\bdocument\s*\./.test(src), `views/${f} mentions document.`);
  }
});

test('no view looks elements up in its document: it is handed them', () => {
  const lookup = /\b(?:doc|ownerDocument|document)\s*\.\s*(?:getElementById|getElementsBy\w+|querySelector(?:All)?)\s*\(/;
  for (const f of views) assert.ok(!lookup.test(source(VIEWS, f)), `views/${f} queries the document`);
});

test('only main.js reads the globals document and window', () => {
  const global = /(?<![\w.$'"`-])(?:document|window)\b(?!\s*:)/;
  for (const f of views) assert.ok(!global.test(source(VIEWS, f)), `views/${f} reads a global document or window`);
  for (const f of modules.filter((x) => x !== 'main.js')) assert.ok(!global.test(source(JS, f)), `${f} reads a global document or window`);
});

test('only state.js assigns to the player\'s state', () => {
  // m is the player's state by convention (render(m), player.get())
  const assign = /(?:\bm|player\.get\(\))\.[\w$]+(?:\.[\w$]+|\[[^\]]*\])*\s*(?:[-+*/%&|^]|\?\?|\|\||&&)?=(?!=)|(?:\bm|player\.get\(\))\.[\w$]+\s*(?:\+\+|--)/;
  const files = [...views.map((f) => [VIEWS, f]), ...modules.filter((f) => f !== 'state.js').map((f) => [JS, f])];
  for (const [dir, f] of files) {
    const hit = source(dir, f).split('\n').find((line) => assign.test(line));
    assert.equal(hit, undefined, `${f} changes the player's state: ${hit?.trim()}`);
  }
});

test('the UI\'s words cite slublab\'s own docs and the kernel, never the design notes users do not have', () => {
  const words = readFileSync(new URL('../data/texts.json', JS), 'utf8');
  for (const re of [/specification/i, /\bsection \d+(\.\d+)*/i, /design notes?/i]) {
    assert.ok(!re.test(words), `web/data/texts.json says ${re.exec(words)?.[0]}`);
  }
  assert.match(JSON.parse(words).about, /docs\/events\.md/);
});
