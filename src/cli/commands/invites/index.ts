// pctl invites create | redeem (list, get and delete are the registry's generic verbs).
import { defineCommand, flag } from '../../command.js';

export const createFlags = {
  parent: flag.required('--parent <group>', 'the group to invite into (uid, name, name path or uid suffix)', { complete: { live: 'groups' } }),
  role: flag.required('--role <role>', 'the role the invitee gets: a uid, a name (e.g. viewer) or a uid suffix', { complete: { live: 'roles' } }),
  email: flag.string('--email <address>', 'only a token with this email claim may redeem the invite'),
  ttl: { ...flag.string('--ttl <duration>', 'how long the invite stays valid: 30m, 12h, 7d … (1 minute to 30 days)'), default: '7d' },
  singleUse: flag.bool('--single-use', 'the first redeem consumes the invite'),
};

export const inviteCommands = [
  defineCommand({
    name: 'create',
    flags: createFlags,
    help: {
      summary: 'create an invite and print its code (shown only this once)',
      description:
        'Create an invite into a group with a role. The code is printed once, with the `pctl invites redeem` line to send to the ' +
        'invitee; no later command can show it again (delete the invite and create another to resend).',
      examples: [
        ['a week-long, single-use invite for one address', 'pctl invites create --parent platform --role viewer --email ana@example.com --single-use'],
        ['just the code, for a script', "pctl invites create --parent platform --role editor --ttl 1d -o json --jq .code"],
      ],
    },
    load: () => import('./create.js'),
  }),
  defineCommand({
    name: 'redeem',
    args: [{ name: '<code>', description: 'the invite code you were sent' }],
    help: {
      summary: 'redeem an invite: bind yourself to its group with its role',
      description:
        'Redeem an invite code with your own token: your identity is bound to the invite\'s group with its role, and the new ' +
        'role binding is printed. (An extension of pctl serve: the vendor redeems invites at sign-up.)',
      examples: [['redeem a code', 'pctl invites redeem pctl_invite_Xs8…']],
    },
    load: () => import('./redeem.js'),
  }),
];
