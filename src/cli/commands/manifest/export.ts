// pctl export [GROUP] [-o yaml|json]: the subtree of a group (default: the caller's
// organization) as a manifest on stdout; what was left out, on stderr.
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatDocument } from '../../manifest/document.js';
import { exportDocument } from '../../manifest/export.js';
import { parentOf, readLive } from '../../manifest/live.js';
import { callerIdentities, whoIsCalling, writeNotes } from '../../manifest/session.js';
import { groupUid } from '../../shared/resolve.js';
import type { WhoAmI } from '../../shared/auth.js';

export async function run(ctx: Context, [group]: string[]): Promise<number> {
  const format = ctx.globals.output ?? 'yaml';
  if (format !== 'yaml' && format !== 'json') throw UsageError.invalidField('output', `export writes yaml or json, not ${format}`);
  // The manifest is built from checked resources (defaults filled in), whatever -o says.
  ctx.globals = { ...ctx.globals, output: undefined };
  const client = await ctx.client();
  const who = await whoIsCalling(ctx, client);
  const rootUid = await exportRoot(ctx, group, who);
  const live = await readLive(client, [rootUid], { tolerant: true });
  const self = callerIdentities(who, live);
  const notes = live.unreadable.map((u) => `${u.noun} are left out: you may not list them (${u.message})`);
  const own = live.identities.filter((i) => self.has(i.uid));
  if (own.length) {
    const bindings = live.bindings.filter((b) => self.has(b.identity.uid)).length;
    notes.push(`your own identity ${own.map((i) => i.name).join(', ')} and its ${bindings} role binding${bindings === 1 ? '' : 's'} are left out: apply never manages the identity it runs as`);
  }
  ctx.io.stdout.write(await formatDocument(exportDocument(live, [rootUid], self), format));
  writeNotes(ctx, notes);
  return 0;
}

/** The group to export: a name path, a name or uid, or (none given) the organization of the caller's identity. */
async function exportRoot(ctx: Context, group: string | undefined, who: WhoAmI): Promise<string> {
  if (group === undefined) {
    const uid = who.identity?.uid;
    if (!uid) throw new UsageError('name the group to export (pctl export GROUP): this API does not say which organization you sign in to');
    let org = uid;
    while (parentOf(org)) org = parentOf(org)!;
    return org;
  }
  return (await groupUid(ctx, group))!;
}
