// Group invites: an invitation to join a group with a role, nested under the group's uid.
// No update. The code is a secret shown only in the create response; keyId names it.
// Redeeming (POST /iam/v2/groupInvites:redeem) is serve's documented extension.
import { col, defineResource, timeCol, uidCol } from './define.js';
import type { GroupInvite } from '../schemas.js';

export const groupInvites = defineResource({
  kind: 'GroupInvite',
  plural: 'groupInvites',
  path: '/iam/v2/groupInvites',
  nouns: { one: 'invite', many: 'invites', cli: 'invites' },
  storeKind: 'groupInvite',
  capability: 'group_invites',
  published: { service: 'chainguard.platform.iam.v2.GroupInvitesService' },
  operations: ['list', 'get', 'create', 'delete'],
  visibility: 'hierarchy',
  parent: { kind: 'group', field: 'parent' },
  filters: {
    key_id: { column: 'alt_key', flag: '--key-id <id>', description: 'only the invite whose code has this key id (repeatable: any of them)' },
  },
  updatable: [],
  outputOnly: ['uid', 'role', 'expirationTime', 'code', 'keyId', 'createTime'],
  writeOnly: ['code'],
  references: 'uid suffix',
  view: {
    noun: 'invites',
    id: (i) => i.uid,
    columns: [
      // No name of its own: the role's name is its name for order_by=name (see models.ts), and
      // the contract puts NAME first in every table.
      col<GroupInvite>('NAME', (i) => i.role.name, { keep: true }),
      uidCol<GroupInvite>(),
      col<GroupInvite>('EMAIL', (i) => i.email, { shrink: true }),
      timeCol<GroupInvite>('EXPIRES', (i) => i.expirationTime),
      col<GroupInvite>('SINGLE USE', (i) => i.singleUse, { kind: 'bool' }),
      col<GroupInvite>('KEY ID', (i) => i.keyId, { wide: true, keep: true }),
      timeCol<GroupInvite>('CREATED', (i) => i.createTime, { wide: true }),
    ],
  },
  completion: { candidates: (i) => [[i.uid, `${i.role?.name ?? '?'}${i.email ? ` for ${i.email}` : ''}`]] },
  cli: {
    help: {
      summary: 'invite people to a group with a role, and redeem invites',
      description:
        'An invite carries a secret code that binds whoever redeems it to the group with the invite\'s role. The code is shown ' +
        'once, when the invite is created; an invite may be limited to one email address, to one use, and always expires.',
      examples: [
        ['invite a colleague as a viewer for a week', 'pctl invites create --parent platform --role viewer --email ana@example.com --ttl 7d --single-use'],
        ['redeem a code you were sent', 'pctl invites redeem "$CODE"'],
      ],
    },
    list: {
      scope: 'group',
      summary: 'list invites',
      description: 'List invites (never their codes), every page. --group lists those of one group; --key-id finds the invite of a code.',
      examples: [['the open invites of a group', 'pctl invites list --group platform']],
    },
    get: {
      argument: 'invite uid',
      summary: 'show an invite',
      description: 'Show one invite: its role, email restriction, expiry and key id (never the code).',
      examples: [['as YAML', 'pctl invites get "$INVITE_UID" -o yaml']],
    },
    delete: {
      argument: 'invite uid',
      summary: 'delete (revoke) an invite',
      description: 'Delete an invite: its code stops working. On a terminal pctl asks for confirmation unless --yes is given.',
      examples: [['revoke without asking', 'pctl invites delete "$INVITE_UID" --yes']],
    },
  },
});
