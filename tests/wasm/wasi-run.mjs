// Run a WASI program under node, one instance per process (node 20's WASI
// crashes after a few instances in one process: docs/wasm.md):
//   node tests/wasm/wasi-run.mjs PROGRAM.wasm ARGS...
// The working directory is preopened as ".", so relative paths in ARGS
// (scenarios/x.json) read as they do natively; the exit status is the
// program's.  SLUBLAB_WASI_TIME=1 adds, on stderr, the milliseconds spent
// compiling the module and running it (bench/wasm.sh).
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';

const [file, ...args] = process.argv.slice(2);
if (!file) {
    process.stderr.write('usage: node tests/wasm/wasi-run.mjs PROGRAM.wasm ARGS...\n');
    process.exit(2);
}
const wasi = new WASI({
    version: 'preview1',
    args: ['slublab', ...args],
    env: {},
    preopens: { '.': process.cwd() },
    returnOnExit: true,
});
const t0 = performance.now();
const module = await WebAssembly.compile(readFileSync(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
const t1 = performance.now();
process.exitCode = wasi.start(instance);
if (process.env.SLUBLAB_WASI_TIME === '1') {
    const t2 = performance.now();
    process.stderr.write(`wasi-run: compile ${(t1 - t0).toFixed(1)} ms, run ${(t2 - t1).toFixed(1)} ms\n`);
}
