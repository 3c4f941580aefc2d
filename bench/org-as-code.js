// The organization as code at size (issue 35): a manifest of 2,000 resources (400 groups,
// 800 identities, 800 role bindings), applied to the empty organization of a fresh serve
// (target: at most 15 s), then diffed against that serve, which matches it (target: at
// most 3 s, median of 3). Wall times of the real CLI in a child process, as a user runs it.
// Part of `npm run bench`; alone: node bench/org-as-code.js.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { median, pctl, startServe, tempDir } from './lib.js';

/** 20 teams of 20 groups (the team and 19 below it), each with 2 identities, one an editor, one a viewer. */
export function manifestOf2000(org, issuer) {
  const group = (name) => ({
    name,
    description: `the ${name} group`,
    identities: ['deployer', 'reader'].map((who) => ({ name: `${name}-${who}`, claimMatch: { issuer, subject: `repo:acme/${name}:${who}` } })),
    roleBindings: [{ identity: `${name}-deployer`, role: 'editor' }, { identity: `${name}-reader`, role: 'viewer' }],
  });
  const teams = Array.from({ length: 20 }, (_, t) => ({
    ...group(`team-${t}`),
    groups: Array.from({ length: 19 }, (_, s) => group(`team-${t}-sub-${s}`)),
  }));
  return { organizations: [{ name: org.name, description: org.description, groups: teams }] };
}

function timed(args, env) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [pctl, ...args], { env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`pctl ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout.toString() };
}

/** Runs the two measurements; `report(name, value, unit, extra)` as bench/run.js prints them. */
export async function orgAsCode(report) {
  const dataDir = tempDir();
  const work = tempDir('pctl-bench-manifest-');
  const serve = await startServe(dataDir);
  try {
    const env = { PCTL_API_URL: serve.url, PCTL_TOKEN: readFileSync(join(dataDir, 'owner.token'), 'utf8').trim(), PCTL_CONFIG_DIR: work };
    // The organization as it is (its description too): the 2,000 are all below it.
    const org = JSON.parse(timed(['groups', 'list', '--limit', '1', '--order-by', 'uid', '-o', 'json'], env).stdout)[0];
    const file = join(work, 'org.yaml');
    writeFileSync(file, YAML.stringify(manifestOf2000(org, 'https://token.actions.githubusercontent.com')));
    const apply = timed(['apply', '-f', file], env);
    if (!/^Applied 2000 changes\.$/m.test(apply.stdout)) throw new Error(`apply did not make 2000 changes:\n${apply.stdout.slice(-500)}`);
    report('[org as code] apply 2,000 resources to an empty organization', apply.ms, 'ms', {
      target: '<= 15000', met: apply.ms <= 15_000, command: 'pctl apply -f org.yaml  (400 groups, 800 identities, 800 role bindings; serve --rate-limit off)',
    });
    const diffs = [1, 2, 3].map(() => timed(['diff', '-f', file], env).ms);
    const diff = median(diffs);
    report('[org as code] diff 2,000 resources, nothing differs (median of 3)', diff, 'ms', {
      target: '<= 3000', met: diff <= 3_000, command: 'pctl diff -f org.yaml  (exit 0)',
    });
  } finally {
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await orgAsCode((name, value, unit, extra) => {
    console.log(`${name.padEnd(66)} ${value.toFixed(0).padStart(7)} ${unit}  target ${extra.target} ${unit}: ${extra.met ? 'met' : 'MISSED'}\n    $ ${extra.command}`);
  });
}
