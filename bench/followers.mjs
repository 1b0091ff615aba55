// bench/followers.mjs URL SESSION N: hold N follow streams open on one
// session (what a classroom of followers does), print "ready" once every
// stream has its first message, and on SIGTERM print how many position
// messages arrived in total.
import http from 'node:http';

const [url, id, n = '200'] = process.argv.slice(2);
const target = new URL(`/api/sessions/${id}/follow`, url);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
let ready = 0;
let messages = 0;
const reqs = [];

for (let i = 0; i < Number(n); i++) {
  let first = true;
  const req = http.get(target, { agent }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      const k = chunk.split('event: position').length - 1;
      messages += k;
      if (first && k) {
        first = false;
        if (++ready === Number(n)) console.log('ready');
      }
    });
  });
  req.on('error', () => {});
  reqs.push(req);
}

process.on('SIGTERM', () => {
  console.log(`messages ${messages}`);
  for (const r of reqs) r.destroy();
  process.exit(0);
});
