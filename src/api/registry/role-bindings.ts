// Role bindings: a role granted to an identity within a group (and so below it). The wire
// form expands identity, group and role, so a listing needs no follow-up lookups.
import { col, defineResource, timeCol, uidCol } from './define.js';
import type { RoleBinding } from '../schemas.js';

export const roleBindings = defineResource({
  kind: 'RoleBinding',
  plural: 'roleBindings',
  path: '/iam/v2/roleBindings',
  nouns: { one: 'role binding', many: 'role bindings', cli: 'role-bindings' },
  storeKind: 'roleBinding',
  capability: 'role_bindings',
  published: { service: 'chainguard.platform.iam.v2.RoleBindingsService', more: ['UpdateRoleBinding', 'BatchCreateRoleBindings'] },
  operations: ['list', 'get', 'create', 'delete'],
  visibility: 'hierarchy',
  parent: { kind: 'group', field: 'parent' },
  filters: {},
  updatable: [],
  outputOnly: ['uid', 'createTime', 'identity', 'group', 'role'],
  references: false,
  view: {
    noun: 'role bindings',
    id: (b) => b.uid,
    columns: [
      // No name of its own: the role's name is its name for order_by=name (see models.ts), and
      // the contract puts NAME first in every table.
      col<RoleBinding>('NAME', (b) => b.role.name, { keep: true }),
      uidCol<RoleBinding>(),
      col<RoleBinding>('IDENTITY', (b) => b.identity.name),
      col<RoleBinding>('GROUP', (b) => b.group.name),
      col<RoleBinding>('IDENTITY UID', (b) => b.identity.uid, { kind: 'uid', wide: true, keep: true }),
      col<RoleBinding>('SUBJECT', (b) => b.identity.subject, { shrink: true, wide: true }),
      timeCol<RoleBinding>('CREATED', (b) => b.createTime, { wide: true }),
    ],
  },
  completion: {
    candidates: (b) => [[b.uid, `${b.role?.name ?? '?'} for ${b.identity?.name ?? '?'} in ${b.group?.name ?? '?'}`]],
  },
  cli: {
    help: {
      summary: 'grant roles to identities within a group',
      description: 'A role binding grants a role to an identity within a group, and so in everything below that group.',
      examples: [
        ['who has which role in a group', 'pctl role-bindings list --group platform'],
        ['make an identity a viewer of a group', 'pctl role-bindings create --parent platform --identity "$IDENTITY_UID" --role viewer'],
      ],
    },
    list: {
      scope: 'group',
      summary: 'list role bindings',
      description: 'List role bindings, every page. --group (or --children-of) lists those of one group, --descendants-of those of a subtree.',
      examples: [
        ['the bindings of a group', 'pctl role-bindings list --group platform'],
        ['every binding below the organization', 'pctl role-bindings list --descendants-of acme -o wide'],
      ],
    },
    get: {
      argument: 'role binding uid',
      summary: 'show a role binding',
      description: 'Show one role binding.',
      examples: [['as JSON', 'pctl role-bindings get "$BINDING_UID" -o json']],
    },
    delete: {
      argument: 'role binding uid',
      summary: 'delete a role binding',
      description: 'Delete a role binding, revoking the role it granted. On a terminal pctl asks for confirmation unless --yes is given.',
      examples: [['revoke without asking', 'pctl role-bindings delete "$BINDING_UID" --yes']],
    },
  },
});
