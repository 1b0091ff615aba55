// @ts-check
// The sessions' write tokens the browser keeps: whoever created or forked
// a session may step and extend it; a reload or a permalink of the same
// browser finds the token again.  Kept in localStorage under one key, the
// newest 200 sessions.

const KEY = 'slublab.tokens';
export const MAX_TOKENS = 200;

/**
 * The page's localStorage, or null where the browser refuses it (private
 * modes, file:// pages, storage turned off).
 * @param {{ localStorage?: Storage }} win
 * @returns {Storage|null}
 */
export function browserStorage(win) {
  try {
    const storage = win.localStorage ?? null;
    storage?.getItem('x');
    return storage;
  } catch {
    return null;
  }
}

/**
 * The tokens in @storage (null: none are kept).
 * @param {Pick<Storage, 'getItem'|'setItem'>|null} storage
 */
export function createTokens(storage) {
  /** @returns {Record<string, string>} every kept token by session id */
  const all = () => { try { return JSON.parse(storage?.getItem(KEY) ?? '{}'); } catch { return {}; } };
  return {
    all,
    /** The token of session @id, or null. */
    get: (id) => all()[id] ?? null,
    /** Keep @token for session @id (the oldest goes beyond MAX_TOKENS). */
    keep(id, token) {
      if (!storage || !id || !token) return;
      const kept = all();
      kept[id] = token;
      const ids = Object.keys(kept);
      if (ids.length > MAX_TOKENS) delete kept[ids[0]];
      storage.setItem(KEY, JSON.stringify(kept));
    },
  };
}
