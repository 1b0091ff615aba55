// tests/js/synth-trace.mjs: a synthetic kmem trace, as ftrace prints one,
// for tests that need a trace larger than the committed capture (a job
// whose phases last long enough to be watched).  Not a test.
//
// Two CPUs allocate from one cache and free each object `window`
// allocations later, so every free names a live object and the trace
// replays without unreplayable events: 2 * allocs events in all.
import zlib from 'node:zlib';

/**
 * @param {number} allocs  objects allocated (each is freed unless still in the window)
 * @param {number} [window]  allocations between an object's alloc and its free
 * @returns {Buffer} the trace, gzip
 */
export function synthTrace(allocs, window = 64) {
  const lines = ['# tracer: nop', '#', `# entries-in-buffer/entries-written: ${2 * allocs}/${2 * allocs}   #P:2`, '#'];
  const ptr = (i) => (0x100000 + i * 0x100).toString(16).padStart(16, '0');
  let t = 100;
  const stamp = () => (t += 0.000003).toFixed(6).padStart(12);
  for (let i = 0; i < allocs + window; i++) {
    const cpu = `[00${i & 1}]`;
    if (i < allocs) {
      lines.push(`            bash-5383    ${cpu} ..... ${stamp()}: kmem_cache_alloc: call_site=alloc_file+0x1/0x2 ` +
        `ptr=${ptr(i)} name=filp bytes_req=256 bytes_alloc=256 gfp_flags=GFP_KERNEL node=-1 accounted=true`);
    }
    if (i >= window && i - window < allocs) {
      lines.push(`            bash-5383    ${cpu} ..... ${stamp()}: kmem_cache_free: call_site=__fput+0x1/0x2 ` +
        `ptr=${ptr(i - window)} name=filp`);
    }
  }
  return zlib.gzipSync(Buffer.from(lines.join('\n') + '\n'), { level: 1 });
}
