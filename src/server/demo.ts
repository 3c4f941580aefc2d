// The built-in demo data set of `pctl serve --demo` (and `npm start`): an organization
// `acme` with nested groups, CI identities of the GitHub Actions issuer, role bindings,
// 22 repos of about 10 tags each (the oldest deprecated) and 100 advisories. Generated in
// code from a fixed PRNG seed and fixed dates, so every run yields the same document; it
// is an ordinary seed document and goes through the same validation as `--seed FILE`.
import { createHash } from 'node:crypto';
import type { SeedDocument, SeedGroup, SeedRepo, SeedAdvisory } from './seed.js';

export const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';
const GITLAB_ISSUER = 'https://gitlab.com';
/** Demo timestamps count back from here, so the data set does not depend on the clock. */
const EPOCH = Date.parse('2026-01-15T09:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;

/** mulberry32: a tiny deterministic PRNG; returns floats in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const digest = (text: string) => `sha256:${createHash('sha256').update(`pctl demo ${text}`).digest('hex')}`;
const at = (ms: number) => new Date(ms).toISOString();

/** [name, description, major version, newest minor] */
type RepoSpec = [string, string, number, number];

function repos(rand: () => number, specs: RepoSpec[]): SeedRepo[] {
  return specs.map(([name, description, major, newest]) => {
    const count = 8 + Math.floor(rand() * 5); // 8..12 versions
    const deprecatedFrom = Math.max(3, Math.floor(count * (0.55 + rand() * 0.2))); // the oldest ~30% are end-of-life
    let when = EPOCH - Math.floor(rand() * 5) * DAY;
    const tags: NonNullable<SeedRepo['tags']> = [];
    for (let i = 0; i < count; i++) {
      const version = `${major}.${newest - i}`;
      tags.push({ name: version, digest: digest(`${name}:${version}`), deprecated: i >= deprecatedFrom, updateTime: at(when) });
      when -= (7 + Math.floor(rand() * 40)) * DAY;
    }
    // `latest` follows the newest version.
    tags.unshift({ name: 'latest', digest: tags[0]!.digest, deprecated: false, updateTime: tags[0]!.updateTime });
    return { name, description, tags };
  });
}

export function demoSeed(): SeedDocument {
  const rand = prng(2026);
  const gh = (subject: string) => ({ issuer: GITHUB_ISSUER, subject });

  const runtime: SeedGroup = {
    name: 'runtime', description: 'Base and language runtime images',
    identities: [{ name: 'image-builder', description: 'Nightly base image rebuilds', claimMatch: gh('repo:acme/base-images:ref:refs/heads/main') }],
    roleBindings: [{ identity: 'image-builder', role: 'editor' }],
    repos: repos(rand, [
      ['wolfi-base', 'Minimal glibc base image', 2026, 14],
      ['busybox', 'BusyBox userland', 1, 37],
      ['python', 'CPython runtime', 3, 14],
      ['node', 'Node.js runtime', 24, 11],
      ['go', 'Go toolchain', 1, 25],
      ['jdk', 'OpenJDK development kit', 21, 9],
    ]),
  };
  const ci: SeedGroup = {
    name: 'ci', description: 'Build and release pipelines',
    identities: [
      { name: 'deployer', description: 'CI deploys from main', claimMatch: gh('repo:acme/app:ref:refs/heads/main') },
      { name: 'pr-builder', description: 'Pull request builds', claimMatch: gh('repo:acme/app:pull_request') },
    ],
    roleBindings: [{ identity: 'deployer', role: 'editor' }, { identity: 'pr-builder', role: 'viewer' }],
    repos: repos(rand, [
      ['git', 'git client', 2, 47],
      ['kubectl', 'Kubernetes CLI', 1, 32],
      ['helm', 'Helm package manager', 3, 17],
      ['terraform', 'Terraform CLI', 1, 10],
    ]),
  };
  const platform: SeedGroup = {
    name: 'platform', description: 'Platform engineering',
    identities: [{ name: 'release-bot', description: 'Tags platform releases', claimMatch: gh('repo:acme/platform:ref:refs/tags/v*') }],
    roleBindings: [{ identity: 'release-bot', role: 'editor' }],
    repos: repos(rand, [
      ['nginx', 'web server images', 1, 27],
      ['envoy', 'Envoy proxy', 1, 33],
      ['haproxy', 'HAProxy load balancer', 3, 1],
    ]),
    groups: [ci, runtime],
  };
  const security: SeedGroup = {
    name: 'security', description: 'Security engineering',
    identities: [{ name: 'scanner', description: 'Scheduled vulnerability scans', claimMatch: gh('repo:acme/security-scans:ref:refs/heads/main') }],
    repos: repos(rand, [
      ['cosign', 'Signing and verification', 2, 5],
      ['grype', 'Vulnerability scanner', 0, 86],
    ]),
  };
  const apps: SeedGroup = {
    name: 'apps', description: 'Product applications',
    // An identity from another group, named by its path from the organization.
    roleBindings: [{ identity: 'acme/platform/ci/deployer', role: 'viewer' }],
    groups: [
      {
        name: 'api', description: 'Public API services',
        identities: [{ name: 'api-deploy', description: 'Production deploys', claimMatch: gh('repo:acme/api:environment:production') }],
        roleBindings: [{ identity: 'api-deploy', role: 'editor' }],
        repos: repos(rand, [
          ['api/gateway', 'API gateway', 4, 12],
          ['api/orders', 'Orders service', 2, 30],
        ]),
      },
      {
        name: 'web', description: 'Web front ends',
        identities: [{ name: 'web-deploy', description: 'Production deploys', claimMatch: gh('repo:acme/web:environment:production') }],
        roleBindings: [{ identity: 'web-deploy', role: 'editor' }],
        repos: repos(rand, [
          ['web/frontend', 'Customer web app', 5, 18],
          ['web/ssr', 'Server-side rendering workers', 1, 9],
        ]),
      },
    ],
  };
  const data: SeedGroup = {
    name: 'data', description: 'Data platform',
    identities: [{ name: 'pipelines', description: 'GitLab data pipelines', claimMatch: { issuer: GITLAB_ISSUER, subject: 'project_path:acme/data-pipelines:ref_type:branch:ref:main' } }],
    roleBindings: [{ identity: 'pipelines', role: 'editor' }],
    repos: repos(rand, [
      ['postgres', 'PostgreSQL server', 17, 6],
      ['redis', 'Redis server', 7, 4],
      ['kafka', 'Apache Kafka broker', 3, 9],
    ]),
  };
  const acme: SeedGroup = {
    name: 'acme', description: 'Example organization (pctl demo data)',
    roleBindings: [{ identity: 'acme/security/scanner', role: 'viewer' }],
    groups: [apps, data, platform, security],
  };

  // 90 advisory ids; every ninth affects a second artifact: 100 advisories in all.
  const artifacts: string[] = [];
  const collect = (g: SeedGroup) => {
    for (const r of g.repos ?? []) artifacts.push(r.name);
    for (const c of g.groups ?? []) collect(c);
  };
  collect(acme);
  const advisories: SeedAdvisory[] = [];
  for (let n = 1; n <= 90; n++) {
    const advisoryId = `CGA-2026-${String(n).padStart(4, '0')}`;
    const first = artifacts[Math.floor(rand() * artifacts.length)]!;
    const names = [first];
    if (n % 9 === 0) names.push(artifacts.filter((a) => a !== first)[Math.floor(rand() * (artifacts.length - 1))]!);
    const updateTime = at(EPOCH - Math.floor(rand() * 90 * DAY / 60000) * 60000);
    for (const artifactName of names) advisories.push({ advisoryId, artifactName, updateTime });
  }

  return { organizations: [acme], advisories };
}
