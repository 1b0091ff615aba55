// @ts-check
// A WASI (preview 1) host for slublab-api.wasm, small enough to ship with
// the static lab: the nineteen calls the module imports, over a file system
// held in memory (the shipped scenarios and lessons, by path), preopened as
// one directory, read-only but for tmp/, where the module writes a trace
// upload (wasm/api.c) and removes it once replayed.  Standard output and error go to the console
// (or to @log), a line at a time.  No dependency: the same module runs in a
// browser's Web Worker and under node (tests/wasm/api-compare.mjs).

const E = { SUCCESS: 0, BADF: 8, EXIST: 20, INVAL: 28, ISDIR: 31, NOENT: 44, NOSYS: 52, NOTDIR: 54, ROFS: 69 };
const FILETYPE = { CHAR: 2, DIR: 3, FILE: 4 };
const O_CREAT = 1, O_DIRECTORY = 2, O_EXCL = 4, O_TRUNC = 8;

export class WasiExit extends Error {
  /** @param {number} code */
  constructor(code) {
    super(`exit ${code}`);
    this.code = code;
  }
}

/**
 * @param {Map<string, Uint8Array>} files  path (under @root, no leading "/") -> bytes
 * @param {{root?: string, log?: (fd: number, line: string) => void}} [opts]
 */
export function makeWasi(files, opts = {}) {
  const root = opts.root || '/data';
  const log = opts.log || ((fd, line) => (fd === 2 ? console.error(line) : console.log(line)));
  /** @type {WebAssembly.Memory | null} */
  let memory = null;
  const dirs = new Set(['', 'tmp']);
  for (const p of files.keys()) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  /** @type {Map<number, {path: string, dir: boolean, pos: number, chunks?: Uint8Array[]}>} chunks: written, kept at close */
  const fds = new Map([[3, { path: '', dir: true, pos: 0 }]]);
  let nextFd = 4;
  const pending = ['', '', ''];
  const enc = new TextEncoder(), dec = new TextDecoder();

  const view = () => new DataView(/** @type {WebAssembly.Memory} */ (memory).buffer);
  const bytes = () => new Uint8Array(/** @type {WebAssembly.Memory} */ (memory).buffer);
  const str = (/** @type {number} */ p, /** @type {number} */ n) => dec.decode(bytes().subarray(p, p + n));

  /** The path @rel names under directory @base: "" for the root; null above it. */
  function resolve(base, rel) {
    const out = base ? base.split('/') : [];
    for (const part of rel.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (!out.length) return null;
        out.pop();
      } else out.push(part);
    }
    return out.join('/');
  }
  /** The children of directory @dir, sorted, as [name, isDir]. */
  function children(dir) {
    const prefix = dir ? `${dir}/` : '';
    const names = new Map();
    for (const p of [...files.keys(), ...dirs]) {
      if (!p || !p.startsWith(prefix) || p === dir) continue;
      const name = p.slice(prefix.length).split('/')[0];
      names.set(name, dirs.has(prefix + name));
    }
    return [...names.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
  function filestat(ptr, path) {
    const v = view();
    const dir = dirs.has(path);
    for (let i = 0; i < 64; i += 8) v.setBigUint64(ptr + i, 0n, true);
    v.setUint8(ptr + 16, dir ? FILETYPE.DIR : FILETYPE.FILE);
    v.setBigUint64(ptr + 24, 1n, true);
    v.setBigUint64(ptr + 32, BigInt(dir ? 0 : /** @type {Uint8Array} */ (files.get(path)).length), true);
  }

  const wasi = {
    clock_time_get(id, _precision, out) {
      const ns = id === 0 ? BigInt(Date.now()) * 1000000n : BigInt(Math.round(performance.now() * 1e6));
      view().setBigUint64(out, ns, true);
      return E.SUCCESS;
    },
    random_get(ptr, len) {
      for (let off = 0; off < len; off += 65536)
        crypto.getRandomValues(bytes().subarray(ptr + off, ptr + Math.min(len, off + 65536)));
      return E.SUCCESS;
    },
    proc_exit(code) {
      throw new WasiExit(code);
    },
    fd_write(fd, iovs, n, written) {
      const v = view(), f = fds.get(fd);
      let total = 0;
      if (f && f.chunks) {
        for (let i = 0; i < n; i++) {
          const p = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
          f.chunks.push(bytes().slice(p, p + len));
          total += len;
        }
        v.setUint32(written, total, true);
        return E.SUCCESS;
      }
      if (fd !== 1 && fd !== 2) return E.BADF;
      for (let i = 0; i < n; i++) {
        const p = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
        pending[fd] += str(p, len);
        total += len;
      }
      const lines = pending[fd].split('\n');
      pending[fd] = /** @type {string} */ (lines.pop());
      for (const line of lines) log(fd, line);
      v.setUint32(written, total, true);
      return E.SUCCESS;
    },
    fd_read(fd, iovs, n, read) {
      const f = fds.get(fd), data = f && files.get(f.path);
      const v = view();
      let total = 0;
      if (!f || f.dir || !data) return E.BADF;
      for (let i = 0; i < n; i++) {
        const p = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
        const chunk = data.subarray(f.pos, f.pos + len);
        bytes().set(chunk, p);
        f.pos += chunk.length;
        total += chunk.length;
        if (chunk.length < len) break;
      }
      v.setUint32(read, total, true);
      return E.SUCCESS;
    },
    fd_seek(fd, offset, whence, out) {
      const f = fds.get(fd), data = f && files.get(f.path);
      if (!f || !data) return E.BADF;
      const base = whence === 0 ? 0 : whence === 1 ? f.pos : data.length;
      const pos = base + Number(offset);
      if (pos < 0) return E.INVAL;
      f.pos = pos;
      view().setBigUint64(out, BigInt(pos), true);
      return E.SUCCESS;
    },
    fd_close(fd) {
      const f = fds.get(fd);
      if (f && f.chunks && files.has(f.path)) {
        const data = new Uint8Array(f.chunks.reduce((n, c) => n + c.length, 0));
        let off = 0;
        for (const c of f.chunks) {
          data.set(c, off);
          off += c.length;
        }
        files.set(f.path, data);
      }
      return fds.delete(fd) ? E.SUCCESS : E.BADF;
    },
    fd_filestat_get(fd, out) {
      const f = fds.get(fd);
      if (!f) return E.BADF;
      filestat(out, f.path);
      return E.SUCCESS;
    },
    environ_sizes_get(count, size) {
      view().setUint32(count, 0, true);
      view().setUint32(size, 0, true);
      return E.SUCCESS;
    },
    environ_get() {
      return E.SUCCESS;
    },
    path_unlink_file(fd, p, n) {
      const f = fds.get(fd);
      if (!f || !f.dir) return E.BADF;
      const path = resolve(f.path, str(p, n));
      if (path === null || !files.has(path)) return E.NOENT;
      if (!path.startsWith('tmp/')) return E.ROFS;
      files.delete(path);
      return E.SUCCESS;
    },
    fd_fdstat_get(fd, ptr) {
      const v = view(), f = fds.get(fd);
      if (fd > 2 && !f) return E.BADF;
      v.setUint8(ptr, fd <= 2 ? FILETYPE.CHAR : f && f.dir ? FILETYPE.DIR : FILETYPE.FILE);
      v.setUint16(ptr + 2, 0, true);
      v.setBigUint64(ptr + 8, 0xffffffffffffffffn, true);
      v.setBigUint64(ptr + 16, 0xffffffffffffffffn, true);
      return E.SUCCESS;
    },
    fd_fdstat_set_flags() {
      return E.SUCCESS;
    },
    fd_prestat_get(fd, ptr) {
      if (fd !== 3) return E.BADF;
      view().setUint8(ptr, 0);
      view().setUint32(ptr + 4, enc.encode(root).length, true);
      return E.SUCCESS;
    },
    fd_prestat_dir_name(fd, ptr, len) {
      if (fd !== 3) return E.BADF;
      bytes().set(enc.encode(root).subarray(0, len), ptr);
      return E.SUCCESS;
    },
    fd_readdir(fd, buf, len, cookie, used) {
      const f = fds.get(fd);
      if (!f || !f.dir) return E.BADF;
      const v = view();
      let off = 0;
      const list = children(f.path);
      for (let i = Number(cookie); i < list.length && off < len; i++) {
        const [name, isDir] = list[i];
        const nb = enc.encode(name);
        const ent = new Uint8Array(24 + nb.length);
        const dv = new DataView(ent.buffer);
        dv.setBigUint64(0, BigInt(i + 1), true);
        dv.setBigUint64(8, BigInt(i + 1), true);
        dv.setUint32(16, nb.length, true);
        dv.setUint8(20, isDir ? FILETYPE.DIR : FILETYPE.FILE);
        ent.set(nb, 24);
        const take = Math.min(ent.length, len - off); /* a cut entry: the caller asks again */
        bytes().set(ent.subarray(0, take), buf + off);
        off += take;
      }
      v.setUint32(used, off, true);
      return E.SUCCESS;
    },
    path_filestat_get(fd, _flags, p, n, out) {
      const f = fds.get(fd);
      if (!f || !f.dir) return E.BADF;
      const path = resolve(f.path, str(p, n));
      if (path === null || (!dirs.has(path) && !files.has(path))) return E.NOENT;
      filestat(out, path);
      return E.SUCCESS;
    },
    path_open(fd, _dirflags, p, n, oflags, _rights, _inherit, _fdflags, out) {
      const f = fds.get(fd);
      if (!f || !f.dir) return E.BADF;
      const path = resolve(f.path, str(p, n));
      const dir = path !== null && dirs.has(path);
      const create = path !== null && !dir && !files.has(path) && oflags & O_CREAT;
      if (create && /^tmp\/[^/]+$/.test(path)) files.set(path, new Uint8Array(0));
      else if (path === null || (!dir && !files.has(path)))
        return oflags & O_CREAT ? E.ROFS : E.NOENT;
      else if (oflags & (O_EXCL | O_TRUNC)) return oflags & O_EXCL ? E.EXIST : E.ROFS;
      if (oflags & O_DIRECTORY && !dir) return E.NOTDIR;
      const nfd = nextFd++;
      fds.set(nfd, create ? { path, dir, pos: 0, chunks: [] } : { path, dir, pos: 0 });
      view().setUint32(out, nfd, true);
      return E.SUCCESS;
    },
    path_readlink() {
      return E.INVAL; /* nothing here is a link */
    },
  };
  return {
    imports: { wasi_snapshot_preview1: /** @type {Record<string, Function>} */ (wasi) },
    /** @param {WebAssembly.Memory} m */
    setMemory(m) {
      memory = m;
    },
    /** Add file @path (under @root, no leading "/") holding @data, and its directories. */
    addFile(/** @type {string} */ path, /** @type {Uint8Array} */ data) {
      files.set(path, data);
      const parts = path.split('/');
      for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
    },
  };
}
