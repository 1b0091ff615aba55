// @ts-check
// The question panel of predict mode (docs/lessons.md, "Questions"): when
// the player holds a question open (m.question: the position, whose next
// event carries a branch record), it shows the prompt and the recorded
// arms as choices (the digit keys pick one); an answer steps forward, and
// the step's event shows which arm the kernel took: right or wrong, and
// for every other arm when the kernel takes it.  The answer stays shown
// while the lab stands on that step, above the next question when the
// next event carries a record too.  A follower's answer goes to the
// lecture and the presenter's step reveals it; the presenter sees the
// followers' tally, asked every second while the question is open.

import { h, fill } from '../dom.js';
import { questionFor, whyNot, scoreText, tallyBars, verdict } from '../predict.js';

const POLL_MS = 1000;

/**
 * @typedef {{ q: import('../predict.js').Question, sid: string, chosen: string|null, sent: boolean,
 *   error: string|null, tally: any }} Shown
 *   sent: a follower's answer went to the lecture; tally: the followers' answers (the presenter's)
 */

/**
 * @param {HTMLElement} root the panel
 * @param {any} player
 * @param {{ api: any, score: ReturnType<import('../predict.js').createScore>, scoreEl: HTMLElement,
 *   words: () => Record<string, any>, follower: (lecture: string) => Promise<string>,
 *   presenterLecture: () => { id: string, token: string }|null, scoreId?: (session: string) => string }} o
 *   words: texts.json's "questions"; follower: this browser's follower token of a lecture (joining it once);
 *   presenterLecture: the lecture and its token when this page presents (else null);
 *   scoreId: whose score a session's answers count to (a lesson's, across its scenarios), else the session's
 */
export function createQuestion(root, player, o) {
  const doc = root.ownerDocument;
  const win = doc.defaultView;
  /** @type {Shown|null} the open question */
  let cur = null;
  /** @type {Shown|null} the question just revealed */
  let ans = null;
  let key = '', scoreKey = '', lastOpen = '';
  let poll = /** @type {any} */ (0), polling = '';

  const status = h(doc, 'p', { id: 'q-status', class: 'q-status', role: 'status', 'aria-live': 'polite' });

  const cacheName = (m, id) => m.cur?.state?.caches?.find((c) => c.id === id)?.name ?? '';
  const pres = (m) => (m.following ? null : o.presenterLecture());
  const scoreOf = (sid) => o.scoreId?.(sid) ?? sid;

  /** Answer the open question with its choice @i (0-based). */
  function choose(i) {
    const m = player.get();
    const c = cur?.q.choices[i];
    if (!cur || !c) return false;
    cur.chosen = c.arm;
    if (m.following) {
      cur.sent = true;
      cur.error = null;
      if (m.lecture) {
        const was = cur;
        const lec = m.lecture;
        o.follower(lec).then((token) => o.api.answerLecture(lec, { at: was.q.at, choice: c.arm, token }))
          .catch((err) => { was.error = `The answer did not reach the presenter: ${err.message}`; draw(player.get(), true); });
      }
      draw(m, true);
      return true;
    }
    player.reveal(true);
    return true;
  }

  /** Leave the open question unanswered: step on to its event (a follower waits for the presenter). */
  function skip() {
    if (!cur) return;
    cur.chosen = null;
    if (player.get().following) { cur = null; player.reveal(false); return; }
    player.reveal(true);
  }

  function stopPoll() { clearInterval(poll); poll = 0; polling = ''; }
  function startPoll(lec, at) {
    const k = `${lec.id}@${at}`;
    if (polling === k) return;
    stopPoll();
    polling = k;
    const was = cur;
    const ask = () => o.api.lectureAnswers(lec.id, lec.token, at).then((r) => {
      if (!was) return;
      was.tally = r;
      if (was === cur || was === ans) draw(player.get(), true);
    }, () => {});
    ask();
    poll = win?.setInterval(ask, POLL_MS) ?? 0;
  }

  /** Follow the player: reveal, close or open questions. */
  function follow(m) {
    const sid = m.session?.id ?? '';
    if (cur && cur.sid !== sid) cur = null;
    if (cur && m.at === cur.q.at + 1) {
      // the step shows the event: its record says which arm the kernel took
      const taken = m.events.get(cur.q.at)?.branches?.[0]?.taken ?? cur.q.taken;
      ans = { ...cur, q: { ...cur.q, taken } };
      // a question counts once: its session and position
      if (cur.chosen) o.score.record(scoreOf(sid), scoreOf(sid) === sid ? cur.q.at : `${sid}@${cur.q.at}`, cur.chosen === taken);
      cur = null;
    } else if (cur && m.question !== cur.q.at && !(m.question === null && m.passing === cur.q.at && m.at === cur.q.at)) {
      cur = null; // moved elsewhere (kept while the step that reveals it is on its way)
    }
    if (ans && (ans.sid !== sid || m.at !== ans.q.at + 1)) ans = null;
    if (m.question !== null && !cur) {
      const e = m.events.get(m.question);
      const q = e ? questionFor(e, o.words(), { cacheName: cacheName(m, e.cache), names: m.cur?.names }) : null;
      if (q) cur = { q, sid, chosen: null, sent: false, error: null, tally: null };
    }
  }

  /** The list of @s's choices: buttons while open, marked right and wrong with the reasons once revealed. */
  function choices(s, revealed, id) {
    const bars = s.tally ? tallyBars(s.q, s.tally) : null;
    const list = h(doc, 'ol', { class: 'q-choices', id }, s.q.choices.map((c, i) => {
      const right = revealed && c.arm === s.q.taken, wrong = revealed && c.arm === s.chosen && !right;
      const bar = bars ? bars[i] : null;
      return h(doc, 'li', { class: ['q-choice', right ? 'right' : '', wrong ? 'wrong' : '', c.arm === s.chosen ? 'chosen' : '', bar ? 'has-tally' : ''].filter(Boolean).join(' '), dataset: { arm: c.arm } },
        revealed
          ? h(doc, 'span', { class: 'q-text' }, right ? '✓ ' : wrong ? '✗ ' : '', `${i + 1}. ${c.text}`)
          : h(doc, 'button', { type: 'button', class: 'q-pick', 'aria-keyshortcuts': i < 9 ? String(i + 1) : null,
            'aria-pressed': s.sent ? String(c.arm === s.chosen) : null, onclick: () => choose(i) }, `${i + 1}. ${c.text}`),
        bar ? h(doc, 'span', { class: 'q-tally', 'aria-label': `${bar.n} of ${s.tally.total ?? 0} answers` },
          h(doc, 'span', { class: 'q-bar', 'aria-hidden': 'true' }), ` ${bar.n}`) : null,
        revealed && !right ? h(doc, 'span', { class: 'q-why' }, whyNot(c)) : null,
        right && c.when ? h(doc, 'span', { class: 'q-why' }, `The kernel takes it when ${c.when.replace(/[.\s]+$/, '')}.`) : null);
    }));
    if (bars) list.querySelectorAll('.q-bar').forEach((b, i) => { /** @type {HTMLElement} */ (b).style.width = `${Math.round(bars[i].frac * 100)}%`; });
    const of = s.tally?.followers ? ` of ${s.tally.followers} ${s.tally.followers === 1 ? 'follower' : 'followers'}` : ' from the class';
    return [list, bars ? h(doc, 'p', { class: 'q-total', id: `${id}-total` }, `${s.tally.total} ${s.tally.total === 1 ? 'answer' : 'answers'}${of}`) : null];
  }

  const resultText = (s) => verdict(s.q, s.chosen);

  function draw(m, force = false) {
    const lec = pres(m);
    if (cur && lec) startPoll(lec, cur.q.at);
    else if (!(ans && lec && polling === `${lec.id}@${ans.q.at}`)) stopPoll();
    const k = JSON.stringify([cur && [cur.q.at, cur.sid, cur.chosen, cur.sent, cur.error, cur.tally], ans && [ans.q.at, ans.sid, ans.chosen, ans.tally], !!lec, !!m.following]);
    if (k === key && !force) return;
    key = k;
    const openKey = cur ? `${cur.sid}@${cur.q.at}` : '';
    const opened = !!openKey && openKey !== lastOpen;
    lastOpen = openKey;
    root.hidden = !cur && !ans;
    root.classList.toggle('revealed', !!ans);
    if (!cur && !ans) { fill(root); status.textContent = ''; return; }
    const parts = [];
    const say = [];
    if (ans) {
      parts.push(h(doc, 'section', { class: 'q-answer', id: 'q-answer', 'aria-labelledby': 'q-answer-title' },
        h(doc, 'h2', { id: 'q-answer-title', class: 'q-prompt' }, h(doc, 'span', { class: 'q-kind' }, 'The answer: '), ans.q.prompt),
        ...choices(ans, true, 'q-answer-choices'),
        h(doc, 'p', { class: 'q-result', id: 'q-result' }, resultText(ans))));
      say.push(resultText(ans));
    }
    if (cur) {
      parts.push(h(doc, 'section', { class: 'q-ask', id: 'q-ask', 'aria-labelledby': 'q-title' },
        h(doc, 'h2', { id: 'q-title', class: 'q-prompt' }, h(doc, 'span', { class: 'q-kind' }, 'Predict: '), h(doc, 'span', { id: 'q-prompt' }, cur.q.prompt)),
        ...choices(cur, false, 'q-choices')));
      const hint = cur.error ?? (cur.sent ? 'Answer sent. The presenter reveals the answer by stepping on.'
        : lec ? 'The class is answering. Step forward (→) to reveal.'
          : `Pick an answer (keys 1 to ${Math.min(9, cur.q.choices.length)}), or skip.`);
      parts[parts.length - 1].append(h(doc, 'p', { class: 'q-hint row' }, h(doc, 'span', { class: cur.error ? 'err' : null, id: 'q-hint' }, hint), ' ',
        h(doc, 'button', { type: 'button', id: 'q-skip', onclick: skip }, lec ? 'Reveal' : 'Skip')));
      say.push(hint);
    }
    parts.push(status);
    fill(root, ...parts);
    status.textContent = say.join(' ');
    if (opened && !m.following) /** @type {HTMLElement|null} */ (root.querySelector('#q-choices .q-pick'))?.focus({ preventScroll: true });
  }

  return {
    render(m) {
      follow(m);
      draw(m);
      const s = o.score.get(scoreOf(m.session?.id ?? ''));
      const sk = `${m.predict}/${s.right}/${s.asked}`;
      if (sk !== scoreKey) {
        scoreKey = sk;
        o.scoreEl.textContent = m.predict || s.asked ? scoreText(s) : '';
        o.scoreEl.hidden = !(m.predict || s.asked);
      }
    },
    /** Is a question waiting for an answer? (the digit keys answer it) */
    open: () => !!cur,
    choose,
    skip,
  };
}
