// @ts-check
// The sessions' write tokens the browser keeps: whoever created or forked
// a session may step and extend it; a reload or a permalink of the same
// browser finds the token again.  Kept in localStorage under one key, the
// newest 200 sessions.  The snapshots this browser saved are kept the same
// way (their tokens, under a key of their own): the Share tab lists those.

const KEY = 'slublab.tokens';
export const SNAPSHOT_KEY = 'slublab.snapshot-tokens';
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
 * The tokens in @storage (null: none are kept), under @key: the sessions'
 * (KEY) or the snapshots' (SNAPSHOT_KEY).
 * @param {Pick<Storage, 'getItem'|'setItem'>|null} storage
 */
export function createTokens(storage, key = KEY) {
  /** @returns {Record<string, string>} every kept token by session id */
  const all = () => { try { return JSON.parse(storage?.getItem(key) ?? '{}'); } catch { return {}; } };
  return {
    all,
    /** The token of session (or snapshot) @id, or null. */
    get: (id) => all()[id] ?? null,
    /** Keep @token for session @id (the oldest goes beyond MAX_TOKENS). */
    keep(id, token) {
      if (!storage || !id || !token) return;
      const kept = all();
      kept[id] = token;
      const ids = Object.keys(kept);
      if (ids.length > MAX_TOKENS) delete kept[ids[0]];
      storage.setItem(key, JSON.stringify(kept));
    },
  };
}
