// Tags: the tags of an image repository (they nest under their repo's uid): created and deleted
// by the vendor's TagsService (and v1, which updates them too), or from seeds.
import { col, defineResource, nameCol, timeCol, uidCol } from './define.js';
import type { Tag } from '../schemas.js';

export const tags = defineResource({
  kind: 'Tag',
  plural: 'tags',
  path: '/registry/v2/tags',
  nouns: { one: 'tag', many: 'tags', cli: 'tags' },
  storeKind: 'tag',
  capability: 'tag',
  published: { service: 'chainguard.platform.registry.v2.TagsService', methods: { update: 'chainguard.platform.registry.Registry/UpdateTag' } },
  // Get of a single tag is not in the spec; serve offers it as an extension.
  operations: ['list', 'get', 'create', 'update', 'delete'],
  visibility: 'hierarchy',
  parent: { kind: 'repo', field: 'uidp.children_of' },
  filters: {},
  updatable: ['name', 'digest', 'deprecated', 'bundles'],
  outputOnly: ['uid', 'createTime', 'updateTime'],
  references: false,
  view: {
    noun: 'tags',
    id: (t) => t.uid ?? '',
    columns: [
      nameCol<Tag>(),
      col<Tag>('DIGEST', (t) => t.digest, { kind: 'digest', keep: true }),
      col<Tag>('DEPRECATED', (t) => t.deprecated, { kind: 'bool' }),
      timeCol<Tag>('UPDATED', (t) => t.updateTime),
      uidCol<Tag>({ wide: true }),
    ],
  },
  cli: {
    help: {
      summary: 'image tags of a repo',
      description: 'The tags of an image repository: name, digest and whether the tag is deprecated (end of life).',
      examples: [['the tags of a repo', 'pctl tags list --repo nginx']],
    },
  },
});
