// @ts-check
// The header's Lessons menu (docs/lessons.md): the course's lessons
// (GET /api/lessons) and, in a group of their own, its exercises
// (GET /api/exercises); picking one opens it.  Solved exercises carry a
// check mark.

/**
 * @param {HTMLSelectElement} select the menu, holding its prompt (value '') first
 * @param {{ onLesson: (id: string) => void, onExercise: (id: string) => void }} o
 */
export function createCourseMenu(select, o) {
  const doc = select.ownerDocument;
  const lessons = doc.createElement('optgroup');
  lessons.label = 'Lessons';
  const exercises = doc.createElement('optgroup');
  exercises.label = 'Exercises';
  select.append(lessons, exercises);
  select.addEventListener('change', () => {
    const v = select.value;
    select.value = '';
    if (v.startsWith('lesson:')) o.onLesson(v.slice(7));
    else if (v.startsWith('exercise:')) o.onExercise(v.slice(9));
  });
  const prompt = /** @type {HTMLOptionElement} */ (select.options[0]);
  let lessonList = /** @type {{ id: string, title: string }[]} */ ([]);
  let open = /** @type {string|null} */ (null);
  const say = () => {
    const i = lessonList.findIndex((l) => l.id === open);
    prompt.textContent = open ? `Lesson ${i >= 0 ? `${i + 1}: ${lessonList[i].title}` : open}` : 'Lessons…';
  };
  const put = (group, kind, list, done) => {
    group.replaceChildren();
    for (const x of list) {
      const opt = doc.createElement('option');
      opt.value = `${kind}:${x.id}`;
      opt.textContent = `${done(x.id) ? '✓ ' : ''}${x.title}${x.minutes ? ` (${x.minutes} min)` : ''}`;
      group.append(opt);
    }
    group.hidden = !list.length;
  };
  return {
    /** Offer lessons @list ({id, title, minutes}). */
    lessons(list) { lessonList = list; put(lessons, 'lesson', list, () => false); say(); },
    /** Name lesson @id as the one open (null: none) in the menu's prompt. */
    showing(id) { if (id !== open) { open = id; say(); } },
    /** Offer exercises @list ({id, title}); @done marks the solved ones. */
    exercises(list, done = () => false) { put(exercises, 'exercise', list, done); },
  };
}
