// Roles: named sets of capabilities. The built-in ones (owner, editor, viewer) lie outside
// the group tree; custom roles live in a group.
import { col, defineResource, nameCol, timeCol, uidCol } from './define.js';
import type { Role } from '../schemas.js';

export const roles = defineResource({
  kind: 'Role',
  plural: 'roles',
  path: '/iam/v2/roles',
  nouns: { one: 'role', many: 'roles', cli: 'roles' },
  storeKind: 'role',
  capability: 'roles',
  published: { service: 'chainguard.platform.iam.v2.RolesService' },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  // Custom roles follow the hierarchy; built-in ones are seen through roles.list held anywhere.
  visibility: 'global',
  parent: { kind: 'group', field: 'parent' },
  filters: {},
  updatable: ['name', 'description', 'capabilities'],
  outputOnly: ['uid', 'createTime', 'updateTime'],
  references: false,
  view: {
    noun: 'roles',
    id: (r) => r.uid,
    columns: [
      nameCol<Role>(),
      uidCol<Role>(),
      col<Role>('DESCRIPTION', (r) => r.description, { shrink: true }),
      col<Role>('CAPABILITIES', (r) => r.capabilities?.join(','), { shrink: true, wide: true }),
      timeCol<Role>('CREATED', (r) => r.createTime, { wide: true }),
      timeCol<Role>('UPDATED', (r) => r.updateTime, { wide: true }),
    ],
  },
  completion: { orderBy: 'name', candidates: (r) => [[r.name, r.description || r.uid]] },
  cli: {
    help: {
      summary: 'manage roles: the built-in ones and custom sets of capabilities',
      description: 'Roles are named sets of capabilities (owner, editor, viewer, and custom ones). Role bindings grant them.',
      examples: [['the roles, with more columns', 'pctl roles list -o wide']],
    },
  },
});
