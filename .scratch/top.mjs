import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const total = [...dt.values()].reduce((a, b) => a + b, 0);
const self = new Map(), incl = new Map();
const key = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*\/(dist|node_modules)\//, '$1/')}:${n.callFrame.lineNumber}`;
for (const [id, t] of dt) {
  const n = byId.get(id);
  self.set(key(n), (self.get(key(n)) ?? 0) + t);
  const seen = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) { const k = key(byId.get(x)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + t); } }
}
const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([n, t]) => `${(t / 1000).toFixed(0).padStart(7)} ms ${(100 * t / total).toFixed(1).padStart(5)}%  ${n}`).join('\n');
console.log('total', (total / 1000).toFixed(0), 'ms\n--- self'); console.log(top(self, Number(process.argv[3] ?? 30)));
console.log('--- inclusive'); console.log(top(incl, Number(process.argv[4] ?? 60)));
