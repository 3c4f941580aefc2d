// Repos: image repositories, in groups: created and deleted by the vendor's ReposService (and v1), or from seeds.
import { col, defineResource, nameCol, timeCol, uidCol } from './define.js';
import type { Repo } from '../schemas.js';

export const repos = defineResource({
  kind: 'Repo',
  plural: 'repos',
  path: '/registry/v2/repos',
  nouns: { one: 'repo', many: 'repos', cli: 'repos' },
  storeKind: 'repo',
  capability: 'repo',
  published: { service: 'chainguard.platform.registry.v2.ReposService', more: ['GetRepoReadme', 'UpdateRepoReadme'] },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  visibility: 'hierarchy',
  parent: { kind: 'group', field: 'parent' },
  filters: {},
  updatable: ['name', 'description', 'catalogTier', 'bundles', 'aliases', 'activeTags', 'syncConfig', 'customOverlay'],
  outputOnly: ['uid', 'createTime', 'updateTime'],
  references: true,
  editor: ['update'],
  view: {
    noun: 'repos',
    id: (r) => r.uid,
    columns: [
      nameCol<Repo>(),
      uidCol<Repo>(),
      col<Repo>('DESCRIPTION', (r) => r.description, { shrink: true }),
      timeCol<Repo>('CREATED', (r) => r.createTime, { wide: true }),
      timeCol<Repo>('UPDATED', (r) => r.updateTime, { wide: true }),
    ],
  },
  completion: { orderBy: 'name', candidates: (r) => [[r.name, r.uid], [r.uid, r.name]] },
  cli: {
    help: {
      summary: 'image repositories (they live in groups)',
      description: 'Image repositories live in groups; each has tags. Wherever a repo is expected, its uid, name or unique uid suffix is accepted.',
      examples: [
        ['the repos below an organization', 'pctl repos list --descendants-of acme'],
        ['the tags of a repo', 'pctl tags list --repo nginx'],
      ],
    },
    list: {
      scope: 'subtree',
      summary: 'list repos',
      description: 'List repos, every page, optionally scoped to a subtree, to one group, or to an exact name.',
      examples: [
        ['every repo below an organization', 'pctl repos list --descendants-of acme'],
        ['find a repo by name', 'pctl repos list --name nginx -o id'],
      ],
    },
    get: {
      argument: 'repo uid',
      summary: 'show a repo',
      description: 'Show one repo, by uid, name or unique uid suffix.',
      examples: [['show a repo by name', 'pctl repos get nginx']],
    },
  },
});
