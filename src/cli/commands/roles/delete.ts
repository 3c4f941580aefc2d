// pctl roles delete ROLE [--yes]: a custom role, by uid, name or uid suffix (it must not be bound).
import { FULL_UID_RE } from '../../../api/references.js';
import { roles } from '../../../api/resources.js';
import type { Context } from '../../context.js';
import { confirmDestructive, runDelete } from '../../shared/delete.js';
import { resolveRole } from '../../shared/roles.js';

export async function run(ctx: Context, [role]: string[]): Promise<number> {
  // Refuse before the name lookup when there is no way to ask.
  if (!ctx.globals.yes && !ctx.io.stdinIsTTY) await confirmDestructive(ctx, '', `delete role ${role}`);
  const uid = FULL_UID_RE.test(role!) ? role! : (await resolveRole(await ctx.client(), role!)).uid;
  return runDelete(ctx, roles, uid);
}
