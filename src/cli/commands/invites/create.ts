// pctl invites create --parent GROUP --role ROLE [--email E] [--ttl 7d] [--single-use]: prints
// the invite with its code (the only time the API shows it), and on stderr the line to send.
import { groupInvites } from '../../../api/resources.js';
import { emailProblem, INVITE_TTL_RULE, inviteTtlSeconds, type CreateGroupInviteBody, type GroupInvite } from '../../../api/schemas.js';
import { col, views } from '../../../output/columns.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { resolveRole } from '../../shared/roles.js';
import { checkField } from '../../shared/validate.js';
import type { createFlags } from './index.js';

const UNIT_S: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `7d`, `12h`, `30m`, `90s` or bare seconds → the API's duration string (`"604800s"`). */
export function ttlDuration(value: string): string {
  const m = /^(\d+)([smhd]?)$/.exec(value.trim());
  const duration = m ? `${Number(m[1]) * UNIT_S[m[2] || 's']!}s` : '';
  if (inviteTtlSeconds(duration) === undefined) {
    throw UsageError.invalidField('ttl', INVITE_TTL_RULE.replace('a duration in seconds such as "604800s"', 'a duration such as 30m, 12h or 7d'));
  }
  return duration;
}

export async function run(ctx: Context, _args: string[], opts: FlagValues<typeof createFlags>): Promise<number> {
  checkField('email', emailProblem, opts.email);
  const ttl = ttlDuration(opts.ttl ?? '7d');
  const client = await ctx.client();
  const parent = (await groupUid(ctx, opts.parent, '--parent'))!;
  const role = await resolveRole(client, opts.role, '--role');
  const body: CreateGroupInviteBody = { parent, groupInvite: { roleUid: role.uid, ttl } };
  if (opts.email !== undefined) body.groupInvite.email = opts.email;
  if (opts.singleUse) body.groupInvite.singleUse = true;
  const invite: GroupInvite = await client.create(groupInvites, body);
  const view = { ...views.groupInvites, columns: [...views.groupInvites.columns, col<GroupInvite>('CODE', (i) => i.code, { keep: true })] };
  await printResource(ctx, view, invite);
  if (invite.code) ctx.io.stderr.write(`Send this to the invitee (the code is shown only now):\n  pctl invites redeem ${invite.code}\n`);
  return 0;
}
