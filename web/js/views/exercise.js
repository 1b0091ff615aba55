// @ts-check
// An exercise (docs/lessons.md, "Exercise files") above the scenario
// editor: the task, the operations allowed, a hint ladder, and a check.
// The editor starts from the exercise's preset; "Check" runs the preset
// with the operations in the editor and the goal as expectations at the
// end, and says what the engine saw (the server's "expects") and how many
// operations the attempt added to the preset's own.

import { h, fill } from '../dom.js';
import { attemptScenario, judgeAttempt, goalText } from '../course.js';

/**
 * @param {HTMLElement} root
 * @param {any} player
 * @param {{ api: any, editor: () => Promise<{ setText: (t: string) => void, getText: () => string }>,
 *   solved: ReturnType<import('../course.js').createSolved>, onRun: () => void, onChange: () => void, beforeRun?: () => void }} o
 *   onRun: the attempt was opened in the lab; onChange: the exercise shown changed (the URL follows);
 *   beforeRun: the lab is about to show the attempt (what another view left there goes)
 */
export function createExercise(root, player, o) {
  const doc = root.ownerDocument;
  /** @type {any} */
  let ex = null;
  let hints = 0;
  /** @type {Promise<number>|null} */
  let presetOps = null;
  /** @type {{ id: string, token: string }|null} */
  let attempt = null;

  const title = h(doc, 'h2', { id: 'ex-title' });
  const task = h(doc, 'div', { id: 'ex-task' });
  const hintList = h(doc, 'ol', { id: 'ex-hints', class: 'ex-hints' });
  const hintBtn = h(doc, 'button', { type: 'button', id: 'ex-hint', onclick: () => { hints++; draw(); } }, 'Hint');
  const checkBtn = h(doc, 'button', { type: 'button', id: 'ex-check', onclick: () => { check(); } }, 'Check');
  const runBtn = h(doc, 'button', { type: 'button', id: 'ex-run', hidden: true, onclick: () => { openAttempt(); } }, 'Show the attempt in the lab');
  const result = h(doc, 'div', { id: 'ex-result', role: 'status', 'aria-live': 'polite' });
  fill(root, title, task, hintList, h(doc, 'p', { class: 'row' }, hintBtn, checkBtn, runBtn), result);
  root.hidden = true;

  function draw() {
    if (!ex) { root.hidden = true; return; }
    root.hidden = false;
    title.textContent = `Exercise: ${ex.title}${o.solved.has(ex.id) ? ' ✓ solved' : ''}`;
    fill(task, h(doc, 'p', null, ex.task),
      h(doc, 'p', { id: 'ex-max' }, `Goal, at the end: ${ex.goal.map((g) => `${g.metric} ${g.op} ${g.value}`).join(', ')}. `,
        `Add at most ${ex.max_ops} operations to the preset's own (a "repeat" with "times": 5 counts as five). `,
        'Only the operations are taken from the editor.'));
    const shown = Math.min(hints, ex.hints?.length ?? 0);
    fill(hintList, (ex.hints ?? []).slice(0, shown).map((t) => h(doc, 'li', null, t)));
    hintBtn.disabled = shown >= (ex.hints?.length ?? 0);
    hintBtn.textContent = shown ? `Another hint (${shown} of ${ex.hints.length})` : 'Hint';
  }

  /** Open exercise @id: its words, and the editor preset with its scenario. */
  async function open(id) {
    ex = await o.api.exercise(id);
    hints = 0;
    attempt = null;
    runBtn.hidden = true;
    fill(result);
    const preset = ex.preset;
    presetOps = o.api.createSession({ scenario: preset }).then((r) => r.ops);
    presetOps.catch(() => {});
    draw();
    const ed = await o.editor();
    ed.setText(JSON.stringify(preset, null, 2));
    o.onChange();
    return ex;
  }

  async function check() {
    if (!ex) return;
    const ed = await o.editor();
    let obj;
    try { obj = JSON.parse(ed.getText()); } catch (err) {
      fill(result, h(doc, 'p', { class: 'err' }, `The editor's text is not valid JSON: ${err.message}`));
      return;
    }
    const ops = Array.isArray(obj?.ops) ? obj.ops : [];
    fill(result, h(doc, 'p', null, 'Checking…'));
    try {
      const [r, base] = await Promise.all([o.api.createSession({ scenario: attemptScenario(ex, ops) }), presetOps]);
      attempt = { id: r.id, token: r.token };
      runBtn.hidden = false;
      const j = judgeAttempt(ex, r, base ?? 0);
      const lines = j.goals.map((g) => h(doc, 'li', { class: g.ok ? 'ok' : 'err' }, goalText(g)));
      const count = h(doc, 'p', { id: 'ex-ops', class: j.within ? 'ok' : 'err' },
        `${j.used} ${j.used === 1 ? 'operation' : 'operations'} added; at most ${ex.max_ops} allowed: ${j.within ? 'within the limit' : 'too many'}.`);
      if (j.solved) {
        o.solved.add(ex.id);
        draw();
        o.onChange();
        fill(result, h(doc, 'p', { class: 'ok ex-solved', id: 'ex-verdict' }, '✓ Solved: the goal is met within the operations allowed.'), h(doc, 'ul', null, lines), count);
      } else {
        fill(result, h(doc, 'p', { class: 'err', id: 'ex-verdict' },
          !j.met ? '✗ Not yet: the goal is not met at the end.' : '✗ Not yet: the goal is met, but with too many operations.'),
        h(doc, 'ul', null, lines), count);
      }
    } catch (err) {
      fill(result, h(doc, 'p', { class: 'err', id: 'ex-verdict' }, `The attempt did not run: ${err.message}`));
    }
  }

  async function openAttempt() {
    if (!attempt) return;
    o.beforeRun?.();
    await player.open({ id: attempt.id, token: attempt.token, at: 0 });
    o.onRun();
  }

  return {
    open,
    check,
    close() { ex = null; draw(); o.onChange(); },
    /** The exercise shown, for the URL; null when none. */
    id: () => ex?.id ?? null,
  };
}
