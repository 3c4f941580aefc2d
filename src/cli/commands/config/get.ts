// pctl config get [NAME] [KEY] [--show-token]: a profile (default: the current one), or one value.
import { createPrinter, write } from '../../../output/print.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { MASK, profileKey, profileRow, profileView } from '../../shared/profiles.js';
import type { FlagValues } from '../../command.js';
import type { getFlags } from './index.js';

export async function run(ctx: Context, [nameArg, key]: string[], opts: FlagValues<typeof getFlags>): Promise<number> {
  const store = await ctx.config();
  const name = nameArg ?? ctx.globals.profile ?? (ctx.env.PCTL_PROFILE || undefined) ?? store.currentProfileName();
  if (!name) throw new NotFoundError('no current profile: name one, or pick one with `pctl config use NAME`');
  const profile = store.profile(name);
  if (!profile) throw new NotFoundError(`Profile not found: "${name}" (see: pctl config list)`);
  if (key === undefined) {
    await createPrinter(ctx).item(profileView, profileRow(store, name, profile, opts.showToken));
    return 0;
  }
  const field = profileKey(key);
  if (field === 'apiUrl') {
    await write(ctx.io.stdout, `${profile.apiUrl}\n`);
    return 0;
  }
  if (!profile.token) throw new NotFoundError(`profile "${name}" has no token`);
  await write(ctx.io.stdout, `${opts.showToken ? profile.token : MASK}\n`);
  return 0;
}
