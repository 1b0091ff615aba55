// @ts-check
// The presenter's lecture (docs/api.md, "Lectures"): one follow link for
// the whole class, whatever session the presenter shows.  The lecture is
// made when the presenter view first shows a session, and pointed at each
// new session (a scenario switch, a fork) after that.  Its id and token
// are kept in the page's storage, so a reload keeps the students' link.
// No DOM.

const KEY = 'slublab.lecture';

/**
 * @param {{ createLecture: Function, setLecture: Function }} api
 * @param {Storage|null} storage
 */
export function createLectureKeeper(api, storage) {
  /** @type {{ id: string, token: string, session: string|null }|null} */
  let lec = null;
  try { lec = JSON.parse(storage?.getItem(KEY) ?? 'null'); } catch { lec = null; }
  if (lec) lec.session = null; // unknown until set again
  /** @type {Promise<any>} */
  let chain = Promise.resolve();
  let busyFor = /** @type {string|null} */ (null);

  const keep = () => { try { storage?.setItem(KEY, JSON.stringify({ id: lec?.id, token: lec?.token })); } catch { /* private mode */ } };

  async function syncNow(session) {
    if (lec && lec.session === session) return;
    if (lec) {
      try {
        await api.setLecture(lec.id, lec.token, session);
        lec.session = session;
        return;
      } catch (err) {
        if (err?.status !== 404 && err?.status !== 403) throw err;
        lec = null; // the server forgot it (a restart): make another
      }
    }
    const r = await api.createLecture(session);
    lec = { id: r.id, token: r.token, session };
    keep();
  }

  return {
    /** The lecture's id, once made; else null. */
    id: () => lec?.id ?? null,
    /** The lecture's write token, once made (it reads the followers' answers); else null. */
    token: () => lec?.token ?? null,
    /** The session the lecture shows, as far as this page knows. */
    session: () => lec?.session ?? null,
    /**
     * Make the lecture show @session (made first if need be).  Calls run
     * one after the other; resolves true when something changed.
     * @param {string} session
     */
    sync(session) {
      if ((lec && lec.session === session) || busyFor === session) return Promise.resolve(false);
      busyFor = session;
      chain = chain.then(() => syncNow(session)).then(() => true, () => false).finally(() => { if (busyFor === session) busyFor = null; });
      return chain;
    },
  };
}
