// @ts-check
// The glossary over the page (a dialog): every term of glossary.js with
// its words and where in the kernel it comes from.  Also the links a
// slide's text gets: the first use of each term on a slide becomes a
// button that opens the glossary at that term (a tap does what a hover's
// title shows).

import { h, fill } from '../dom.js';
import { GLOSSARY, findTerms, termById } from '../glossary.js';

/** @param {HTMLDialogElement} dialog */
export function createGlossary(dialog) {
  const doc = dialog.ownerDocument;
  const list = h(doc, 'dl', { class: 'glossary-list', id: 'glossary-list' });
  // the dialog's words are written when it first opens, not while the page boots
  let filled = false;
  function fillList() {
    filled = true;
    const close = h(doc, 'button', { type: 'button', id: 'glossary-close', onclick: () => dialog.close() }, 'Close');
    fill(dialog, h(doc, 'h2', { id: 'glossary-title' }, 'Glossary'),
      h(doc, 'p', { class: 'note' }, 'The words the lessons and the picture use, and the kernel function, field or constant each comes from.'),
      list, h(doc, 'p', null, close, ' ', h(doc, 'span', { class: 'note' }, 'or Esc')));
    for (const t of GLOSSARY) {
      list.append(h(doc, 'dt', { id: `gl-${t.id}` }, t.term),
        h(doc, 'dd', { dataset: { term: t.id } }, t.words, ' ', h(doc, 'span', { class: 'gl-from' }, 'From: ', h(doc, 'code', null, t.from), '.')));
    }
  }

  /** Open the glossary, at term @id when given. */
  function show(id = '') {
    if (!filled) fillList();
    if (!dialog.open) dialog.showModal();
    for (const x of list.querySelectorAll('.gl-now')) x.classList.remove('gl-now');
    const dt = id ? list.querySelector(`#gl-${id}`) : null;
    if (dt) {
      dt.classList.add('gl-now');
      dt.nextElementSibling?.classList.add('gl-now');
      dt.scrollIntoView({ block: 'center' });
    } else list.scrollTop = 0;
  }

  /**
   * Turn the first use of each term in @root's text (a slide) into a
   * button opening the glossary there; @seen: terms already linked.
   * @param {HTMLElement} root
   * @param {Set<string>} [seen]
   */
  function link(root, seen = new Set()) {
    const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
    /** @type {Text[]} */
    const nodes = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(/** @type {Text} */ (n));
    for (const node of nodes) {
      const text = node.data;
      const hits = findTerms(text).filter((x) => !seen.has(x.id));
      if (!hits.length) continue;
      const parts = [];
      let i = 0;
      for (const x of hits) {
        if (seen.has(x.id)) continue;
        seen.add(x.id);
        const t = /** @type {import('../glossary.js').Term} */ (termById(x.id));
        parts.push(text.slice(i, x.start),
          h(doc, 'button', { type: 'button', class: 'term', title: `${t.term}: ${t.words}`, dataset: { term: t.id }, onclick: () => show(t.id) }, text.slice(x.start, x.end)));
        i = x.end;
      }
      parts.push(text.slice(i));
      node.replaceWith(...parts.filter((p) => p !== ''));
    }
  }

  dialog.addEventListener('click', (ev) => { if (ev.target === dialog) dialog.close(); });
  return { show, link, close: () => dialog.close() };
}
