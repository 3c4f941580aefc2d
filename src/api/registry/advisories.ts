// Advisories: vulnerability advisories, each about one artifact. Flat uids, outside the group
// tree, from seeds. artifactName is kept in the store's name column and advisoryId in
// alt_key, so both filters are exact matches the list engine indexes.
import { col, defineResource, timeCol, uidCol } from './define.js';
import type { Advisory } from '../schemas.js';

export const advisories = defineResource({
  kind: 'Advisory',
  plural: 'advisories',
  path: '/vulnerabilities/v2/advisories',
  nouns: { one: 'advisory', many: 'advisories', cli: 'advisories' },
  storeKind: 'advisory',
  capability: 'advisories',
  published: { service: 'chainguard.platform.vulnerabilities.v2.AdvisoriesService' },
  operations: ['list', 'get'],
  visibility: 'global',
  parent: null,
  filters: {
    artifactNames: { column: 'name', flag: '--artifact <name>', description: 'only advisories for this artifact (repeatable: any of them)' },
    advisoryIds: { column: 'alt_key', flag: '--advisory-id <id>', description: 'only this advisory id, e.g. CGA-2026-0001 (repeatable: any of them)' },
  },
  updatable: [],
  outputOnly: ['uid', 'createTime', 'updateTime'],
  references: true,
  referenceFilter: 'advisoryIds',
  view: {
    noun: 'advisories',
    id: (a) => a.uid,
    columns: [
      // The artifact's name is the advisory's name: what order_by=name sorts by and --artifact matches.
      col<Advisory>('NAME', (a) => a.artifactName, { keep: true }),
      col<Advisory>('ADVISORY ID', (a) => a.advisoryId, { keep: true }),
      timeCol<Advisory>('UPDATED', (a) => a.updateTime),
      uidCol<Advisory>({ wide: true }),
    ],
  },
  completion: { orderBy: 'name', candidates: (a) => [[a.advisoryId, a.artifactName]] },
  cli: {
    help: {
      summary: 'vulnerability advisories, advisory documents and vulnerability metadata',
      description:
        'Vulnerability advisories, each about one artifact (an image name): list and get. Advisory documents by package, with their events, ' +
        'and vulnerability metadata (summary, references, CVSS scores): documents and metadata. `pctl advisory` is another name for it.',
      examples: [
        ['the advisories for nginx', 'pctl advisories list --artifact nginx'],
        ['what is known about log4j-core', 'pctl advisories documents --package log4j-core'],
      ],
    },
    list: {
      scope: 'none',
      summary: 'list advisories',
      description: 'List advisories, every page, by artifact name, and advisories of one artifact by uid (the order the API breaks ties in; --order-by "created_at desc" puts the newest first). --artifact and --advisory-id may be repeated; an advisory matching any of them is listed.',
      examples: [
        ['the advisories for two artifacts', 'pctl advisories list --artifact nginx --artifact envoy'],
        ['one advisory by its id', 'pctl advisories list --advisory-id CGA-2026-0001 -o yaml'],
      ],
    },
    get: {
      argument: 'advisory uid or advisory id',
      summary: 'show an advisory',
      description: 'Show one advisory by its uid or its advisory id (CGA-2026-0001); an id with advisories for several artifacts is ambiguous.',
      examples: [['by advisory id, as YAML', 'pctl advisories get CGA-2026-0001 -o yaml']],
    },
  },
});
