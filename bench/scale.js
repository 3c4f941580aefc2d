// npm run bench -- --scale [size]: the store at a size (default 100,000 groups; 10k, 100k, 1M).
// Builds the data as a user would, from a seed file (`pctl serve --seed`), then prints: the
// seed's load time (spawn → listening) and serve's peak RSS meanwhile, the data dir's bytes per
// group, and lists read right after a write against the same lists from cache.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { fmt, median, serveMeasured, startServe, tempDir } from './lib.js';

/**
 * A seed of `n` groups: one organization, 10 teams, 100 subgroups a team, the rest leaves spread
 * over the subgroups (~1,000 leaves each at 1M): depth-3 scopes exist at every size.
 */
export function scaleSeed(n) {
  let made = 1;
  const org = { name: 'scale', groups: [] };
  const subs = [];
  for (let i = 0; i < 10 && made < n; i++, made++) org.groups.push({ name: `team-${i}`, groups: [] });
  for (let i = 0; made < n && i < 1000; i++, made++) {
    const sub = { name: `sub-${String(i).padStart(4, '0')}`, groups: [] };
    org.groups[i % org.groups.length].groups.push(sub);
    subs.push(sub);
  }
  for (let i = 0; made < n; i++, made++) subs[i % subs.length].groups.push({ name: `leaf-${String(i).padStart(7, '0')}` });
  return { organizations: [org] };
}

function dirBytes(dir) {
  let total = 0;
  for (const f of readdirSync(dir)) if (f.startsWith('pctl.db')) total += statSync(join(dir, f)).size;
  return total;
}

/** The ms of one GET (its body read; 200 or it throws). */
async function timedGet(url, headers) {
  const t0 = performance.now();
  const r = await request(url, { headers });
  const body = await r.body.text();
  if (r.statusCode !== 200) throw new Error(`GET ${url}: ${r.statusCode} ${body.slice(0, 300)}`);
  return performance.now() - t0;
}

export async function scale(n, report, cleanup) {
  const dir = tempDir('pctl-bench-scale-');
  cleanup.push(dir);
  const dataDir = join(dir, 'data');
  const seedFile = join(dir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(scaleSeed(n)));
  const tag = `[scale ${fmt(n)} groups]`;
  const serve = await serveMeasured(['--data', dataDir, '--seed', seedFile], join(dir, 'config'));
  report(`${tag} serve --seed: load (spawn → listening)`, serve.ms, 'ms', { target: n >= 1_000_000 ? '< 120,000' : undefined, command: `pctl serve --seed seed.json (${fmt(n)} groups, ${fmt(statSync(seedFile).size)} bytes of JSON)` });
  report(`${tag} serve --seed: peak RSS`, await serve.stop(), 'MiB', { command: '/usr/bin/time -f %M pctl serve --seed …' });
  report(`${tag} data dir bytes per group`, dirBytes(dataDir) / n, 'bytes', { command: 'pctl.db* after serve stopped, / groups' });

  // Served again (the data dir as it is now): lists after a write against lists from cache.
  const restart = await startServe(dataDir);
  try {
    const headers = { authorization: `Bearer ${readFileSync(join(dataDir, 'owner.token'), 'utf8').trim()}` };
    const json = async (path, init = {}) => {
      const r = await request(`${restart.url}${path}`, { ...init, headers: { ...headers, 'content-type': 'application/json' } });
      const body = await r.body.json();
      if (r.statusCode !== 200) throw new Error(`${path}: ${r.statusCode} ${JSON.stringify(body)}`);
      return body;
    };
    const team = (await json('/iam/v2/groups?name=team-3')).groups[0].uid;
    const otherTeam = (await json('/iam/v2/groups?name=team-4')).groups[0].uid;
    const sub = (await json(`/iam/v2/groups?uidp.children_of=${encodeURIComponent(team)}&page_size=1`)).groups[0].uid;
    const lists = [
      ['first sorted page of every group (name, 50)', '/iam/v2/groups?order_by=name&page_size=50'],
      ['a one-match name filter', '/iam/v2/groups?name=sub-0003'],
      ['descendants_of a team, by name', `/iam/v2/groups?uidp.descendants_of=${encodeURIComponent(team)}&order_by=name&page_size=50`],
    ];
    let made = 0;
    const create = (parent) => json('/iam/v2/groups', { method: 'POST', body: JSON.stringify({ parent, group: { name: `bench-${made++}` } }) });
    const rounds = 31;
    for (const [what, path] of lists) {
      const url = `${restart.url}${path}`;
      await timedGet(url, headers); // warm: counted and cached
      const cached = [];
      const afterWrite = [];
      const afterWriteElsewhere = [];
      for (let i = 0; i < rounds; i++) {
        cached.push(await timedGet(url, headers));
        await create(sub); // a write inside every scope listed here
        afterWrite.push(await timedGet(url, headers));

        await create(otherTeam); // a write outside the team (inside the kind)
        afterWriteElsewhere.push(await timedGet(url, headers));
      }
      const c = median(cached);
      const w = median(afterWrite);
      report(`${tag} ${what}: from cache`, c, 'ms', { command: `GET ${path} (median of ${rounds})` });
      report(`${tag} ${what}: right after a create in its scope`, w, 'ms', {
        ratio: w / c, target: n >= 1_000_000 && what.startsWith('first sorted') ? '<= 2' : undefined, command: `POST /iam/v2/groups (parent: a subgroup of team-3), then GET ${path}`,
      });
      report(`${tag} ${what}: right after a create in another team`, median(afterWriteElsewhere), 'ms', { command: 'POST /iam/v2/groups (parent: team-4), then GET' });
    }
  } finally {
    await restart.stop();
  }
}
