// @ts-check
// The way in for a first visit (a page with no lesson, session or
// exercise in its address): the course beside the lab, lesson 01 first,
// each lesson with how long it takes and what it teaches.  Picking one
// opens it; "Just the lab" puts the panel away.

import { h, fill } from '../dom.js';

/**
 * @param {HTMLElement} root
 * @param {{ onLesson: (id: string) => void, score?: () => { right: number, asked: number } }} o
 *   score: the predictions made in the lessons so far, in this browser
 */
export function createCourseStart(root, o) {
  const doc = root.ownerDocument;
  root.hidden = true;
  return {
    /** Offer lessons @list ({id, title, minutes, summary}), the first as the start. */
    show(list) {
      if (!list.length) { root.hidden = true; return; }
      const [first] = list;
      const total = list.reduce((a, l) => a + (l.minutes ?? 0), 0);
      const sc = o.score?.() ?? { right: 0, asked: 0 };
      fill(root,
        h(doc, 'h2', { id: 'course-start-title' }, 'New to SLUB? Start the course'),
        h(doc, 'p', null, `${list.length} lessons, about ${Math.round(total / 60 * 2) / 2} hours in all, each played over the lab beside it. `,
          h(doc, 'button', { type: 'button', id: 'course-start-first', class: 'primary', onclick: () => o.onLesson(first.id) }, `Start lesson 1: ${first.title} (${first.minutes} min)`),
          sc.asked ? h(doc, 'span', { id: 'course-score', class: 'note' }, ` Your predictions in the lessons so far: ${sc.right}/${sc.asked} right. `) : null,
          ' ', h(doc, 'button', { type: 'button', id: 'course-start-close', class: 'link', onclick: () => { root.hidden = true; } }, 'Just the lab')),
        h(doc, 'details', { class: 'course-list' }, h(doc, 'summary', null, 'All the lessons'),
          h(doc, 'ol', null, list.map((l) => h(doc, 'li', null,
            h(doc, 'button', { type: 'button', class: 'link', dataset: { lesson: l.id }, onclick: () => o.onLesson(l.id) }, l.title),
            l.minutes ? ` (${l.minutes} min)` : '', l.summary ? h(doc, 'span', { class: 'note' }, `: ${l.summary}`) : null)))));
      root.hidden = false;
    },
    hide() { root.hidden = true; },
  };
}
