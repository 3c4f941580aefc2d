// Groups: the tree everything else lives in; an organization is a root group.
import { col, defineResource, nameCol, timeCol, uidCol } from './define.js';
import type { Group } from '../schemas.js';

export const groups = defineResource({
  kind: 'Group',
  plural: 'groups',
  path: '/iam/v2/groups',
  nouns: { one: 'group', many: 'groups', cli: 'groups' },
  storeKind: 'group',
  capability: 'groups',
  published: { service: 'chainguard.platform.iam.v2.GroupsService', more: ['LookupGroup'] },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  visibility: 'hierarchy',
  parent: { kind: 'group', field: 'parent' },
  filters: {},
  // verified and kind: the published UpdateGroup takes them (the Terraform provider's mask always names verified, and kind when it changes).
  updatable: ['name', 'description', 'verified', 'kind'],
  outputOnly: ['uid', 'createTime', 'updateTime', 'resourceLimits', 'status'],
  references: true,
  editor: ['update'],
  view: {
    noun: 'groups',
    id: (g) => g.uid,
    columns: [
      nameCol<Group>(),
      uidCol<Group>(),
      col<Group>('DESCRIPTION', (g) => g.description, { shrink: true }),
      col<Group>('VERIFIED', (g) => g.verified, { kind: 'bool', wide: true }),
      timeCol<Group>('CREATED', (g) => g.createTime, { wide: true }),
      timeCol<Group>('UPDATED', (g) => g.updateTime, { wide: true }),
    ],
  },
  completion: { orderBy: 'name', candidates: (g) => [[g.name, g.uid], [g.uid, g.name]] },
  cli: {
    help: {
      summary: 'manage groups (organizations are root groups)',
      description:
        'Groups form a tree: an organization is a root group, and identities, role bindings and repos live in groups. ' +
        'Wherever a group is expected, its uid, its name, its name path from the organization (acme/platform) or a unique uid suffix is accepted.',
      examples: [
        ['list every group you can see', 'pctl groups list'],
        ['create a group below the organization acme', 'pctl groups create platform --parent acme'],
      ],
    },
    list: {
      scope: 'subtree',
      summary: 'list groups',
      description:
        'List groups, following page tokens until every match is printed (or --limit is reached). ' +
        '--descendants-of and --children-of scope the listing to a subtree or to direct children.',
      examples: [
        ['every group anywhere below acme', 'pctl groups list --descendants-of acme'],
        ['direct children of acme/platform (a name path), as uids', 'pctl groups list --children-of acme/platform -o id'],
        ['the ten most recently created groups', "pctl groups list --order-by 'created_at desc' --limit 10"],
      ],
    },
    get: {
      argument: 'group uid',
      summary: 'show a group',
      description: 'Show one group: uid, name, description and timestamps. The group may be given by uid, name, name path (acme/platform) or unique uid suffix.',
      examples: [
        ['show a group by name', 'pctl groups get platform'],
        ['as YAML, by uid', 'pctl groups get "$GROUP_UID" -o yaml'],
      ],
    },
    delete: {
      argument: 'group uid',
      summary: 'delete a group (it must be empty)',
      description: 'Delete a group. It must be empty. On a terminal pctl asks for confirmation unless --yes is given.',
      examples: [['delete a group without asking', 'pctl groups delete old-team --yes']],
    },
  },
});
