// @ts-check
// The banner under the header: the player's error or notice (with a
// button that dismisses it), "following the presenter" with a fork
// button, the link students follow in presenter mode, and which snapshot
// is open.

import { h, fill } from '../dom.js';

/**
 * @param {HTMLElement} root
 * @param {any} player
 * @param {{ origin: () => string, presenter: () => boolean, lecture?: () => string|null, snapshot: () => { text: string, warn: boolean }|null, predict?: () => boolean }} o
 *   origin: where students reach the server (GET /api/health's public_url), for the follow link; presenter: is the page in presenter mode;
 *   lecture: the presenter's lecture, whose link outlives scenario switches (until it is
 *   made, the link names the session);
 *   snapshot: the line about the open snapshot, if any; predict: the follow link opens predict mode
 */
export function createBanner(root, player, o) {
  const doc = root.ownerDocument;
  return {
    render(m) {
      const parts = [];
      if (m.error) parts.push(h(doc, 'p', { class: 'err', role: 'alert' }, m.error, ' ', h(doc, 'button', { type: 'button', onclick: () => player.dismiss() }, 'Dismiss')));
      if (m.notice) parts.push(h(doc, 'p', { class: 'notice' }, m.notice, ' ', h(doc, 'button', { type: 'button', onclick: () => player.dismiss() }, 'OK')));
      if (m.following) parts.push(h(doc, 'p', { class: 'follow' }, 'Following the presenter live. ',
        h(doc, 'button', { type: 'button', id: 'explore', onclick: async () => { await player.fork(); } }, 'Fork and explore on my own')));
      const alone = /** @type {any} */ (globalThis).slublabStatic; // the static lab (static/boot.js): nobody can follow
      if (o.presenter() && m.session?.id && alone) {
        parts.push(h(doc, 'p', { class: 'follow-link', id: 'follow-none' }, alone.followers));
      } else if (o.presenter() && m.session?.id) {
        const lec = o.lecture?.() ?? null;
        const base = o.origin();
        const url = `${lec ? `${base}/?lecture=${lec}` : `${base}/?follow=${m.session.id}`}${o.predict?.() ? '&predict=1' : ''}`;
        parts.push(h(doc, 'p', { class: 'follow-link' }, 'Students follow at ', h(doc, 'a', { href: url, id: 'follow-url' }, url)));
      }
      const pg = m.cur?.state?.paged;
      if (pg) {
        const st = m.cur.state, c = st.caches.find((x) => x.id === st.page?.cache);
        const shown = st.page ? `; showing cache ${c?.name ?? st.page.cache}${st.page.slabs < st.page.slabs_total ? ` (its first ${st.page.slabs} of ${st.page.slabs_total} slabs)` : ''}` : '';
        parts.push(h(doc, 'p', { class: 'notice', id: 'paged-banner' },
          `A big state (${pg.slabs} slabs, ${pg.sheaves} sheaves, ${pg.objects + pg.rcu_pending} listed objects): its lists load one cache at a time${shown}.`));
      }
      const snap = o.snapshot();
      if (snap) parts.push(h(doc, 'p', { class: snap.warn ? 'err' : 'notice', id: 'snap-banner' }, snap.text));
      const key = parts.map((p) => p.textContent).join('|');
      if (root.dataset.key !== key) { root.dataset.key = key; fill(root, ...parts); root.hidden = !parts.length; }
    },
  };
}
