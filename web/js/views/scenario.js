// @ts-check
// Your own scenario: paste or upload one, see its errors by operation index
// and key (and where they are in the text), run it, save it.

import { h, fill, download } from '../dom.js';
import { api, errorWhere } from '../api.js';
import { locateInJson } from '../ops.js';

/** @param {{ storage: Storage|null, onRun: () => void }} o */
export function createScenarioEditor(root, player, o) {
  const doc = root.ownerDocument;
  const from = h(doc, 'select', { id: 'sc-from', 'aria-label': 'Start from a shipped scenario' }, h(doc, 'option', { value: '' }, 'start from…'));
  const text = h(doc, 'textarea', { id: 'scenario-text', rows: 18, spellcheck: 'false', 'aria-describedby': 'sc-errors' });
  const file = h(doc, 'input', { type: 'file', id: 'sc-file', accept: '.json,application/json' });
  const errors = h(doc, 'div', { id: 'sc-errors', role: 'alert' });
  const saved = h(doc, 'ul', { id: 'sc-saved' });
  const runBtn = h(doc, 'button', { type: 'button', id: 'sc-run' }, 'Check and run');
  fill(root,
    h(doc, 'p', null, 'Paste a scenario (docs/scenario-format.md), upload a file, or start from a shipped one. Errors name the operation and the key.'),
    h(doc, 'p', { class: 'row' }, from, h(doc, 'label', null, ' or upload ', file)),
    h(doc, 'label', { for: 'scenario-text' }, 'Scenario JSON'), text,
    h(doc, 'p', { class: 'row' }, runBtn,
      h(doc, 'button', { type: 'button', id: 'sc-save-file', onclick: saveFile }, 'Save to a file'),
      h(doc, 'button', { type: 'button', id: 'sc-save-local', onclick: saveLocal }, 'Keep in this browser')),
    errors, h(doc, 'h2', null, 'Kept in this browser'), saved);

  api.scenarios().then((r) => {
    for (const s of r.scenarios) from.append(h(doc, 'option', { value: s.name }, s.name));
  }).catch(() => {});
  from.addEventListener('change', async () => {
    const name = from.value;
    if (!name) return;
    const r = await api.scenario(name);
    text.value = JSON.stringify({ ...r.scenario, name: `${r.scenario.name}-mine` }, null, 2);
  });
  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    if (f) text.value = await f.text();
  });
  runBtn.addEventListener('click', run);

  function show(msg, where) {
    const items = [h(doc, 'p', { class: 'err' }, msg)];
    if (where && (where.op != null || where.key)) {
      items.push(h(doc, 'p', null, where.path ? `operation ${where.path}` : '', where.key ? `, key "${where.key}"` : ''));
    }
    const range = where?.path ? locateInJson(text.value, where.path, where.key) ?? locateInJson(text.value, where.path) : null;
    if (range) items.push(h(doc, 'button', { type: 'button', id: 'sc-show', onclick: () => { text.focus(); text.setSelectionRange(range.start, range.end); } }, 'Show it in the text'));
    fill(errors, ...items);
  }

  function parse() {
    try {
      return JSON.parse(text.value);
    } catch (err) {
      const pos = /position (\d+)/.exec(err.message);
      let where = null;
      if (pos) {
        const before = text.value.slice(0, Number(pos[1]));
        const line = before.split('\n').length, column = before.length - before.lastIndexOf('\n');
        where = { line, column };
        text.focus();
        text.setSelectionRange(Number(pos[1]), Number(pos[1]) + 1);
      }
      show(`Not valid JSON${where ? ` (line ${where.line}, column ${where.column})` : ''}: ${err.message}`, null);
      return null;
    }
  }

  async function run() {
    const obj = parse();
    if (!obj) return;
    fill(errors, h(doc, 'p', null, 'Checking…'));
    try {
      await player.create(obj);
      fill(errors, h(doc, 'p', { class: 'ok' }, `Running "${obj.name}".`));
      o.onRun();
    } catch (err) {
      show(err.message, errorWhere(err.message));
    }
  }

  function saveFile() {
    const obj = parse();
    if (obj) download(doc, `${obj.name || 'scenario'}.json`, JSON.stringify(obj, null, 2) + '\n', 'application/json');
  }

  const KEY = 'slublab.scenarios';
  const kept = () => { try { return JSON.parse(o.storage?.getItem(KEY) ?? '{}'); } catch { return {}; } };
  function saveLocal() {
    const obj = parse();
    if (!obj || !o.storage) return;
    const all = kept();
    all[obj.name || 'scenario'] = text.value;
    o.storage.setItem(KEY, JSON.stringify(all));
    list();
  }
  function list() {
    const all = kept();
    fill(saved, Object.keys(all).map((name) => h(doc, 'li', null,
      h(doc, 'button', { type: 'button', class: 'link', onclick: () => { text.value = all[name]; } }, name), ' ',
      h(doc, 'button', { type: 'button', class: 'link', 'aria-label': `Forget ${name}`, onclick: () => { delete all[name]; o.storage?.setItem(KEY, JSON.stringify(all)); list(); } }, 'forget'))));
  }
  list();
  return {
    setText(t) { text.value = t; fill(errors); },
    getText: () => text.value,
    /** Start the editor from shipped scenario @name when it is empty. */
    async prefill(name) {
      if (text.value.trim() || !name) return;
      try { const r = await api.scenario(name); if (!text.value.trim()) text.value = JSON.stringify(r.scenario, null, 2); } catch { /* a custom scenario: leave it empty */ }
    },
  };
}
