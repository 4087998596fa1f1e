// Summarizes a V8 .cpuprofile: self time by owner (a package under node_modules, Node's own
// internals, V8/GC, or a folder of ours) and the heaviest functions, per request when a request
// count is given. `node bench/profile-summary.js <file.cpuprofile> [requests]`.
const { readFileSync } = require('fs');

const V8_ENTRIES = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

function owner(url, functionName) {
  if (V8_ENTRIES.has(functionName)) return 'V8 (GC, program)';
  // Native bindings carry no url: socket writes (writev, writeUtf8String), hashing, …
  if (!url) return 'native bindings';
  if (url.startsWith('node:')) return 'node internals';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  // Our webpack bundle: one file, so the function names say more than the url.
  return 'our code (dist bundle)';
}

/**
 * `window` ({from, to} in µs of CLOCK_MONOTONIC, as process.hrtime gives it and V8 stamps its
 * samples on Linux) keeps only the samples taken inside it, e.g. the measured requests without
 * boot and warm-up.
 */
function summarize(file, requests, window) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const dt = new Map();
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const d = p.timeDeltas[i] ?? 0;
    at += d;
    if (window && (at < window.from || at > window.to)) continue;
    dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + d);
  }
  const byOwner = new Map();
  const byFn = new Map();
  let total = 0;
  for (const [id, us] of dt) {
    const f = byId.get(id).callFrame;
    if (f.functionName === '(idle)') continue;
    total += us;
    const o = owner(f.url, f.functionName);
    byOwner.set(o, (byOwner.get(o) ?? 0) + us);
    const name = `${f.functionName || '(anonymous)'} ${o === 'our code (dist bundle)' ? '' : `[${o}]`}`;
    byFn.set(name, (byFn.get(name) ?? 0) + us);
  }
  const per = (us) =>
    requests ? `${Math.round(us / requests)} µs/req` : `${Math.round(us / 1000)} ms`;
  const top = (m, n) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, us]) =>
          `${((100 * us) / total).toFixed(1).padStart(5)} %  ${per(us).padStart(12)}  ${k}`,
      );
  return [
    `${file}: busy ${per(total)} (${Math.round(total / 1000)} ms of samples)`,
    'by owner:',
    ...top(byOwner, 15),
    'heaviest functions (self time):',
    ...top(byFn, 25),
  ].join('\n');
}

if (require.main === module) {
  const [file, requests] = process.argv.slice(2);
  console.log(summarize(file, requests ? Number(requests) : undefined));
}

module.exports = { summarize };
