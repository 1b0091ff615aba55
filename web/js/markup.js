// @ts-check
// The lesson format's minimal markup (docs/lessons.md): paragraphs
// separated by a blank line, `code` and **bold**, nothing else.  The text
// is a lesson file's, so it is never parsed as HTML: parseMarkup() cuts it
// into runs, and renderMarkup() builds them as DOM nodes with text only.

/**
 * @typedef {{ kind: 'text'|'code'|'bold', text: string }} Run
 */

/**
 * The paragraphs of @text, each a list of runs.  A backquote or a double
 * star left open is kept as plain text.
 * @param {string} text
 * @returns {Run[][]}
 */
export function parseMarkup(text) {
  const paras = String(text ?? '').replace(/\r\n?/g, '\n').split(/\n[ \t]*\n+/).map((p) => p.trim()).filter(Boolean);
  return paras.map((p) => {
    /** @type {Run[]} */
    const runs = [];
    const push = (kind, s) => {
      if (!s) return;
      const last = runs[runs.length - 1];
      if (last && last.kind === kind && kind === 'text') last.text += s;
      else runs.push({ kind, text: s });
    };
    const re = /`([^`]+)`|\*\*([^*]+(?:\*(?!\*)[^*]*)*)\*\*/g;
    let i = 0;
    for (let m = re.exec(p); m; m = re.exec(p)) {
      push('text', p.slice(i, m.index).replace(/\s*\n\s*/g, ' '));
      if (m[1] !== undefined) push('code', m[1]);
      else push('bold', m[2].replace(/\s*\n\s*/g, ' '));
      i = m.index + m[0].length;
    }
    push('text', p.slice(i).replace(/\s*\n\s*/g, ' '));
    return runs;
  });
}

/**
 * @text as <p> elements of @doc with <code> and <strong> runs, built with
 * text nodes only.
 * @param {Document} doc
 * @param {string} text
 * @returns {HTMLParagraphElement[]}
 */
export function renderMarkup(doc, text) {
  return parseMarkup(text).map((runs) => {
    const p = doc.createElement('p');
    for (const r of runs) {
      if (r.kind === 'text') { p.append(doc.createTextNode(r.text)); continue; }
      const el = doc.createElement(r.kind === 'code' ? 'code' : 'strong');
      el.textContent = r.text;
      p.append(el);
    }
    return p;
  });
}
