// Library artifacts (Ecosystems domain, /libraries/v2/): a read-only catalogue of Java and
// Python packages, from seeds. Outside the group tree: libraries.list held on any group
// reads it. The ecosystem is kept in alt_key, so `ecosystems` is an exact-match filter.
// Versions (/artifacts/{uid}/versions) and counts (/artifacts/count) hang off the same path.
import { col, defineResource, nameCol, timeCol, uidCol } from './define.js';
import type { Artifact } from '../schemas.js';

export const artifacts = defineResource({
  kind: 'Artifact',
  plural: 'artifacts',
  path: '/libraries/v2/artifacts',
  nouns: { one: 'library', many: 'libraries', cli: 'libraries' },
  storeKind: 'artifact',
  capability: 'libraries',
  published: { service: 'chainguard.platform.libraries.v2.ArtifactsService' },
  operations: ['list'],
  visibility: 'global',
  parent: null,
  filters: {
    ecosystems: { column: 'alt_key', flag: '--ecosystem <ecosystem>', description: 'java or python (repeatable: either; required by the API, default both)' },
  },
  updatable: [],
  outputOnly: ['uid', 'ecosystem', 'latestVersion', 'versionCount', 'createTime', 'updateTime'],
  references: true,
  listDefaults: { ecosystems: ['JAVA', 'PYTHON'] },
  view: {
    noun: 'libraries',
    id: (a) => a.uid,
    columns: [
      nameCol<Artifact>(),
      col<Artifact>('ECOSYSTEM', (a) => a.ecosystem),
      col<Artifact>('LATEST', (a) => a.latestVersion),
      col<Artifact>('VERSIONS', (a) => a.versionCount),
      uidCol<Artifact>({ wide: true }),
      col<Artifact>('DESCRIPTION', (a) => a.description, { shrink: true, wide: true }),
      timeCol<Artifact>('UPDATED', (a) => a.updateTime, { wide: true }),
    ],
  },
  completion: { orderBy: 'name', candidates: (a) => [[a.name, `${a.ecosystem.toLowerCase()} ${a.latestVersion}`]] },
  cli: {
    help: {
      summary: 'the catalogue of Java and Python libraries, their versions and counts',
      description: 'Read-only: the language-library artifacts of the Ecosystems domain, with their versions.',
      examples: [
        ['Java libraries whose name contains jackson', 'pctl libraries list --ecosystem java --query jackson'],
        ['the versions of one library', 'pctl libraries versions requests'],
      ],
    },
  },
});
