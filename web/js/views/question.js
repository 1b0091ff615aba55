// @ts-check
// The question panel of predict mode (docs/lessons.md, "Questions"): when
// the player holds a question open (m.question: the position, whose next
// event carries a branch record), it shows the prompt and the recorded
// arms as choices (the keys 1-4 pick one); an answer steps forward, and the
// step's event shows which arm the kernel took: right or wrong, and for
// every other arm when the kernel takes it.  A follower's answer goes to
// the lecture and the presenter's step reveals it; the presenter sees the
// followers' tally, asked every second while the question is open.

import { h, fill } from '../dom.js';
import { questionFor, whyNot, scoreText, tallyBars } from '../predict.js';

const POLL_MS = 1000;

/**
 * @param {HTMLElement} root the panel (a region with a live status line)
 * @param {any} player
 * @param {{ api: any, score: ReturnType<import('../predict.js').createScore>, scoreEl: HTMLElement,
 *   words: () => Record<string, any>, voter: () => string,
 *   presenterLecture: () => { id: string, token: string }|null, onChange?: () => void }} o
 *   words: texts.json's "questions"; voter: this browser's voter id;
 *   presenterLecture: the lecture and its token when this page presents (else null)
 */
export function createQuestion(root, player, o) {
  const doc = root.ownerDocument;
  const win = doc.defaultView;
  /**
   * The question shown: ask (waiting for an answer), sent (a follower's
   * answer went to the lecture), revealed (the step shows the arm taken);
   * stepping: this page stepped on to reveal it.
   * @type {{ q: import('../predict.js').Question, sid: string, phase: 'ask'|'sent'|'revealed', chosen: string|null,
   *   error: string|null, tally: any, stepping: boolean }|null}
   */
  let cur = null;
  let key = '', scoreKey = '', lastOpen = '';
  let poll = /** @type {any} */ (0), polling = '';

  const status = h(doc, 'p', { id: 'q-status', class: 'q-status', role: 'status', 'aria-live': 'polite' });

  function cacheName(m, id) { return m.cur?.state?.caches?.find((c) => c.id === id)?.name ?? ''; }

  /** The answer @i (0-based) of the open question. */
  function choose(i) {
    const m = player.get();
    if (!cur || cur.phase === 'revealed') return false;
    const c = cur.q.choices[i];
    if (!c) return false;
    cur.chosen = c.arm;
    if (m.following) {
      cur.phase = 'sent';
      cur.error = null;
      if (m.lecture) {
        const at = cur.q.at, was = cur;
        o.api.answerLecture(m.lecture, { at, choice: c.arm, voter: o.voter() })
          .catch((err) => { if (cur === was) { was.error = `The answer did not reach the presenter: ${err.message}`; draw(player.get(), true); } });
      }
      draw(m, true);
      return true;
    }
    cur.stepping = true;
    player.reveal(true);
    return true;
  }

  function skip() {
    if (!cur || cur.phase === 'revealed') return;
    cur.chosen = null;
    cur.stepping = !player.get().following;
    player.reveal(cur.stepping);
  }

  function stopPoll() { clearInterval(poll); poll = 0; polling = ''; }
  function startPoll(lec, at) {
    const k = `${lec.id}@${at}`;
    if (polling === k) return;
    stopPoll();
    polling = k;
    const was = cur;
    const ask = () => o.api.lectureAnswers(lec.id, lec.token, at).then((r) => {
      if (cur !== was || !cur) return;
      cur.tally = r;
      draw(player.get(), true);
    }, () => {});
    ask();
    poll = win?.setInterval(ask, POLL_MS) ?? 0;
  }

  /** Follow the player: open, reveal or close the question. */
  function follow(m) {
    const sid = m.session?.id ?? '';
    if (m.question !== null) {
      const e = m.events.get(m.question);
      const q = e ? questionFor(e, o.words(), { cacheName: cacheName(m, e.cache), names: m.cur?.names }) : null;
      if (q && (!cur || cur.q.at !== q.at || cur.sid !== sid || cur.phase === 'revealed')) {
        cur = { q, sid, phase: 'ask', chosen: null, error: null, tally: null, stepping: false };
      }
      return;
    }
    if (!cur) return;
    if (cur.phase !== 'revealed') {
      if (cur.sid === sid && m.at === cur.q.at + 1) {
        cur.phase = 'revealed';
        // the step's event says which arm the kernel took
        const taken = m.events.get(cur.q.at)?.branches?.[0]?.taken ?? cur.q.taken;
        cur.q = { ...cur.q, taken };
        if (cur.chosen) o.score.record(sid, cur.q.at, cur.chosen === taken);
      } else if (!(cur.stepping && cur.sid === sid && m.at === cur.q.at)) {
        cur = null; // moved elsewhere (the step that reveals is still on its way while stepping)
      }
    } else if (cur.sid !== sid || m.at !== cur.q.at + 1) {
      cur = null;
    }
  }

  function draw(m, force = false) {
    const lec = o.presenterLecture();
    if (cur && lec && !m.following) startPoll(lec, cur.q.at);
    else stopPoll();
    const k = cur ? JSON.stringify([cur.q.at, cur.sid, cur.phase, cur.chosen, cur.error, cur.tally, !!lec, !!m.following]) : '';
    if (k === key && !force) return;
    const openKey = cur && cur.phase === 'ask' ? `${cur.sid}@${cur.q.at}` : '';
    const opened = !!openKey && openKey !== lastOpen;
    if (openKey) lastOpen = openKey;
    else if (!cur) lastOpen = '';
    key = k;
    root.hidden = !cur;
    if (!cur) { fill(root); status.textContent = ''; return; }
    const q = cur.q;
    const revealed = cur.phase === 'revealed';
    const parts = [h(doc, 'h2', { id: 'q-title' }, revealed ? 'What happened' : 'What happens next?'),
      h(doc, 'p', { id: 'q-prompt', class: 'q-prompt' }, q.prompt)];
    const bars = cur.tally ? tallyBars(q, cur.tally) : null;
    const list = h(doc, 'ol', { class: 'q-choices', id: 'q-choices' }, q.choices.map((c, i) => {
      const mark = revealed ? (c.arm === q.taken ? '✓ ' : c.arm === cur?.chosen ? '✗ ' : '') : '';
      const cls = ['q-choice', revealed && c.arm === q.taken ? 'right' : '', revealed && c.arm === cur?.chosen && c.arm !== q.taken ? 'wrong' : '',
        c.arm === cur?.chosen ? 'chosen' : ''].filter(Boolean).join(' ');
      const bar = bars ? bars[i] : null;
      return h(doc, 'li', { class: cls, dataset: { arm: c.arm } },
        revealed
          ? h(doc, 'span', { class: 'q-text' }, mark, `${i + 1}. ${c.text}`)
          : h(doc, 'button', { type: 'button', class: 'q-pick', 'aria-keyshortcuts': String(i + 1), 'aria-pressed': c.arm === cur?.chosen ? 'true' : null,
            onclick: () => choose(i) }, `${i + 1}. ${c.text}`),
        revealed && c.arm !== q.taken ? h(doc, 'span', { class: 'q-why' }, whyNot(c)) : null,
        revealed && c.arm === q.taken && c.when ? h(doc, 'span', { class: 'q-why' }, `The kernel takes it when ${c.when.replace(/[.\s]+$/, '')}.`) : null,
        bar ? h(doc, 'span', { class: 'q-tally', 'aria-label': `${bar.n} of ${cur?.tally?.total ?? 0} answers` },
          h(doc, 'span', { class: 'q-bar', 'aria-hidden': 'true' }), ` ${bar.n}`) : null);
    }));
    parts.push(list);
    if (bars) {
      list.querySelectorAll('.q-bar').forEach((b, i) => { /** @type {HTMLElement} */ (b).style.width = `${Math.round(bars[i].frac * 100)}%`; });
      parts.push(h(doc, 'p', { class: 'q-total', id: 'q-total' }, `${cur.tally.total} ${cur.tally.total === 1 ? 'answer' : 'answers'} from the class`));
    }
    let say = '';
    if (revealed) {
      const taken = q.choices.find((c) => c.arm === q.taken);
      say = !cur.chosen ? `The kernel took: ${taken?.text ?? q.taken}.`
        : cur.chosen === q.taken ? `Right: ${taken?.text ?? q.taken}.`
          : `Not this time: the kernel took "${taken?.text ?? q.taken}".`;
    } else if (cur.phase === 'sent') {
      say = 'Answer sent. The presenter reveals the answer by stepping on.';
    } else {
      say = lec && !m.following ? 'The class is answering. Step forward (→) to reveal.' : 'Pick an answer (keys 1 to 4), or skip.';
    }
    if (cur.error) say = cur.error;
    if (!revealed) {
      parts.push(h(doc, 'p', { class: 'row' },
        h(doc, 'button', { type: 'button', id: 'q-skip', onclick: skip }, lec && !m.following ? 'Reveal' : 'Skip')));
    }
    parts.push(status);
    fill(root, ...parts);
    status.textContent = say;
    root.classList.toggle('revealed', revealed);
    if (opened && !m.following) /** @type {HTMLElement|null} */ (root.querySelector('.q-pick'))?.focus({ preventScroll: true });
  }

  return {
    render(m) {
      follow(m);
      draw(m);
      const sid = m.session?.id ?? '';
      const s = o.score.get(sid);
      const sk = `${m.predict}/${s.right}/${s.asked}`;
      if (sk !== scoreKey) {
        scoreKey = sk;
        o.scoreEl.textContent = m.predict || s.asked ? scoreText(s) : '';
        o.scoreEl.hidden = !(m.predict || s.asked);
      }
    },
    /** Is a question waiting for an answer? (the keys 1-4 answer it) */
    open: () => !!cur && cur.phase !== 'revealed',
    choose,
    skip,
  };
}
