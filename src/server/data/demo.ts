// The built-in demo data set of `pctl serve --demo` (and `npm start`): an organization
// `acme` with nested groups, CI identities of the GitHub Actions issuer, role bindings,
// 22 repos of about 10 tags each (the oldest deprecated) and 100 advisories. Generated in
// code from a fixed PRNG seed and fixed dates, so every run yields the same document; it
// is an ordinary seed document and goes through the same validation as `--seed FILE`.
import { createHash } from 'node:crypto';
import type { SeedDocument, SeedGroup, SeedRepo, SeedAdvisory, SeedLibrary } from './seed.js';
import { mulberry32 } from '../base/random.js';

export const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';
const GITLAB_ISSUER = 'https://gitlab.com';
/** Demo timestamps count back from here, so the data set does not depend on the clock. */
const EPOCH = Date.parse('2026-01-15T09:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;


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
      // Past x.0, the versions go on in the major before: 3.1, 3.0, 2.9, 2.8, …
      const minor = newest - i;
      const version = minor >= 0 ? `${major}.${minor}` : `${major - 1}.${10 + minor}`;
      tags.push({ name: version, digest: digest(`${name}:${version}`), deprecated: i >= deprecatedFrom, updateTime: at(when) });
      when -= (7 + Math.floor(rand() * 40)) * DAY;
    }
    // `latest` follows the newest version.
    tags.unshift({ name: 'latest', digest: tags[0]!.digest, deprecated: false, updateTime: tags[0]!.updateTime });
    return { name, description, tags };
  });
}

export function demoSeed(): SeedDocument {
  const rand = mulberry32(2026);
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

  return { organizations: [acme], advisories, libraries: libraries(rand), advisoryDocuments: ADVISORY_DOCUMENTS, vulnerabilityMetadata: VULNERABILITY_METADATA };
}

// ---- the Ecosystems catalogue and the Integrations advisory data ----

/** [name, description, versions from oldest to newest] */
const JAVA: [string, string, string[]][] = [
  ['com.google.guava:guava', 'Google core libraries for Java', ['31.1-jre', '32.1.3-jre', '33.0.0-jre', '33.2.1-jre', '33.3.1-jre']],
  ['org.apache.commons:commons-lang3', 'Apache Commons Lang', ['3.12.0', '3.13.0', '3.14.0', '3.17.0']],
  ['org.apache.commons:commons-text', 'Apache Commons Text', ['1.9', '1.10.0', '1.12.0']],
  ['com.fasterxml.jackson.core:jackson-databind', 'General data-binding for Jackson', ['2.14.2', '2.15.4', '2.16.2', '2.17.2', '2.18.1']],
  ['com.fasterxml.jackson.core:jackson-core', 'Jackson streaming API', ['2.15.4', '2.17.2', '2.18.1']],
  ['org.springframework:spring-core', 'Spring Framework core', ['5.3.39', '6.0.23', '6.1.14', '6.2.0']],
  ['org.springframework.boot:spring-boot', 'Spring Boot', ['3.2.11', '3.3.5', '3.4.0']],
  ['org.apache.logging.log4j:log4j-core', 'Apache Log4j implementation', ['2.14.1', '2.17.1', '2.20.0', '2.24.1']],
  ['org.slf4j:slf4j-api', 'The SLF4J API', ['1.7.36', '2.0.13', '2.0.16']],
  ['io.netty:netty-handler', 'Netty handlers', ['4.1.100.Final', '4.1.108.Final', '4.1.115.Final']],
  ['org.yaml:snakeyaml', 'YAML 1.1 parser and emitter', ['1.33', '2.0', '2.2', '2.3']],
  ['com.squareup.okhttp3:okhttp', 'Square\'s HTTP client', ['4.11.0', '4.12.0']],
  ['org.postgresql:postgresql', 'PostgreSQL JDBC driver', ['42.6.2', '42.7.3', '42.7.4']],
  ['junit:junit', 'JUnit 4', ['4.12', '4.13.2']],
  ['org.junit.jupiter:junit-jupiter-api', 'JUnit 5 Jupiter API', ['5.10.3', '5.11.3']],
  ['ch.qos.logback:logback-classic', 'Logback classic', ['1.4.14', '1.5.8', '1.5.12']],
];

const PYTHON: [string, string, string[]][] = [
  ['requests', 'Python HTTP for Humans', ['2.28.2', '2.31.0', '2.32.2', '2.32.3']],
  ['urllib3', 'HTTP library with thread-safe connection pooling', ['1.26.20', '2.0.7', '2.2.3']],
  ['django', 'A high-level Python web framework', ['4.2.16', '5.0.9', '5.1.3']],
  ['flask', 'A simple framework for building complex web applications', ['2.3.3', '3.0.3', '3.1.0']],
  ['numpy', 'Fundamental package for array computing', ['1.24.4', '1.26.4', '2.0.2', '2.1.3']],
  ['pandas', 'Powerful data structures for data analysis', ['2.0.3', '2.1.4', '2.2.3']],
  ['cryptography', 'Cryptographic recipes and primitives', ['41.0.7', '42.0.8', '43.0.3']],
  ['pyyaml', 'YAML parser and emitter', ['5.4.1', '6.0.1', '6.0.2']],
  ['jinja2', 'A very fast and expressive template engine', ['3.1.2', '3.1.4']],
  ['certifi', 'Mozilla\'s CA bundle', ['2023.7.22', '2024.2.2', '2024.8.30']],
  ['setuptools', 'Build and install Python packages', ['68.2.2', '70.0.0', '75.3.0']],
  ['pip', 'The PyPA package installer', ['23.3.2', '24.2', '24.3.1']],
  ['boto3', 'The AWS SDK for Python', ['1.34.162', '1.35.54']],
  ['pydantic', 'Data validation using Python type hints', ['1.10.18', '2.8.2', '2.9.2']],
  ['sqlalchemy', 'Database abstraction library', ['1.4.54', '2.0.36']],
  ['idna', 'Internationalized domain names in applications', ['3.6', '3.7', '3.10']],
];

function libraries(rand: () => number): SeedLibrary[] {
  const out: SeedLibrary[] = [];
  for (const [ecosystem, specs] of [['JAVA', JAVA], ['PYTHON', PYTHON]] as const) {
    for (const [name, description, versions] of specs) {
      let when = EPOCH - (versions.length * 60 + Math.floor(rand() * 30)) * DAY;
      out.push({
        name, ecosystem, description,
        versions: versions.map((version) => {
          when += (40 + Math.floor(rand() * 40)) * DAY;
          return { version, sizeBytes: String(50_000 + Math.floor(rand() * 3_000_000)), updateTime: at(Math.min(when, EPOCH)) };
        }),
      });
    }
  }
  return out;
}

const ADVISORY_DOCUMENTS: NonNullable<SeedDocument['advisoryDocuments']> = [
  {
    id: 'log4j-core',
    advisories: [{
      id: 'CGA-2021-0001', aliases: ['CVE-2021-44228', 'GHSA-jfh8-c2jp-5v3q'], packageNamespace: 'maven',
      events: [
        { timestamp: '2021-12-10T09:00:00.000Z', detection: { nvdapi: { cpeSearched: 'cpe:2.3:a:apache:log4j', cpeFound: 'cpe:2.3:a:apache:log4j:2.14.1' } } },
        { timestamp: '2021-12-10T15:00:00.000Z', truePositiveDetermination: { note: 'JNDI lookups reachable from logged input' } },
        { timestamp: '2021-12-13T08:00:00.000Z', fixed: { fixedVersion: '2.17.1' } },
      ],
    }],
  },
  {
    id: 'openssl',
    advisories: [
      {
        id: 'CGA-2024-0042', aliases: ['CVE-2024-5535'], packageNamespace: 'wolfi',
        events: [
          { timestamp: '2024-06-27T10:00:00.000Z', detection: { scanv1: { scanner: 'grype', componentName: 'openssl', componentVersion: '3.3.1', componentType: 'apk' } } },
          { timestamp: '2024-06-28T12:00:00.000Z', pendingUpstreamFix: { note: 'awaiting the 3.3.2 release' } },
          { timestamp: '2024-09-04T09:00:00.000Z', fixed: { fixedVersion: '3.3.2' } },
        ],
      },
      {
        id: 'CGA-2024-0043', aliases: ['CVE-2024-2511'], packageNamespace: 'wolfi',
        events: [
          { timestamp: '2024-04-09T10:00:00.000Z', detection: { manual: {} } },
          { timestamp: '2024-04-10T10:00:00.000Z', falsePositiveDetermination: { type: 'VULNERABLE_CODE_NOT_IN_EXECUTION_PATH', note: 'TLS 1.3 session resumption is disabled in this build' } },
        ],
      },
    ],
  },
  {
    id: 'django',
    advisories: [{
      id: 'CGA-2024-0107', aliases: ['CVE-2024-42005', 'GHSA-pv4p-cwwg-4rph'], packageNamespace: 'pypi',
      events: [
        { timestamp: '2024-08-06T10:00:00.000Z', detection: { nvdapi: { cpeSearched: 'cpe:2.3:a:djangoproject:django', cpeFound: 'cpe:2.3:a:djangoproject:django:5.0.7' } } },
        { timestamp: '2024-08-07T10:00:00.000Z', fixed: { fixedVersion: '5.0.8' } },
      ],
    }],
  },
  {
    id: 'busybox',
    advisories: [{
      id: 'CGA-2023-0311', aliases: ['CVE-2023-42363'], packageNamespace: 'wolfi',
      events: [
        { timestamp: '2023-11-27T10:00:00.000Z', detection: { manual: {} } },
        { timestamp: '2023-12-01T10:00:00.000Z', analysisNotPlanned: { note: 'awk is not shipped in this image' } },
        { timestamp: '2024-01-05T10:00:00.000Z', fixNotPlanned: { note: 'upstream considers it a won\'t-fix' } },
      ],
    }],
  },
];

const VULNERABILITY_METADATA: NonNullable<SeedDocument['vulnerabilityMetadata']> = [
  {
    id: 'CVE-2021-44228', summary: 'Log4Shell: remote code execution through JNDI lookups in Apache Log4j 2',
    details: 'Apache Log4j2 2.0-beta9 through 2.15.0 JNDI features do not protect against attacker controlled LDAP and other JNDI related endpoints.',
    references: [{ type: 'ADVISORY', url: 'https://logging.apache.org/log4j/2.x/security.html' }, { type: 'FIX', url: 'https://github.com/apache/logging-log4j2/pull/608' }],
    severities: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' }],
  },
  {
    id: 'CVE-2024-5535', summary: 'OpenSSL: SSL_select_next_proto buffer overread',
    details: 'Calling SSL_select_next_proto with an empty supported client protocols buffer may cause a crash or memory contents to be sent to the peer.',
    references: [{ type: 'ADVISORY', url: 'https://www.openssl.org/news/secadv/20240627.txt' }],
    severities: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:H' }],
  },
  {
    id: 'CVE-2024-2511', summary: 'OpenSSL: unbounded memory growth with session handling in TLSv1.3',
    details: 'Some non-default TLS server configurations can cause unbounded memory growth when processing TLSv1.3 sessions.',
    references: [{ type: 'REPORT', url: 'https://www.openssl.org/news/secadv/20240408.txt' }],
    severities: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L' }],
  },
  {
    id: 'CVE-2024-42005', summary: 'Django: potential SQL injection in QuerySet.values() and values_list()',
    details: 'QuerySet.values() and values_list() methods on models with a JSONField are subject to SQL injection in column aliases.',
    references: [{ type: 'ADVISORY', url: 'https://www.djangoproject.com/weblog/2024/aug/06/security-releases/' }, { type: 'WEB', url: 'https://nvd.nist.gov/vuln/detail/CVE-2024-42005' }],
    severities: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
  },
  {
    id: 'CVE-2023-42363', summary: 'BusyBox: use-after-free in awk',
    details: 'A use-after-free vulnerability was discovered in xasprintf function in xfuncs_printf.c:344 in BusyBox v.1.36.1.',
    references: [{ type: 'REPORT', url: 'https://bugs.busybox.net/show_bug.cgi?id=15865' }],
    severities: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:L/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H' }],
  },
];
