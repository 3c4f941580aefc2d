// pctl config list: every profile, `*` marking the current one; tokens masked.
import { createPrinter } from '../../../output/print.js';
import type { Context } from '../../context.js';
import { profileRow, profileView } from '../../shared/profiles.js';

export async function run(ctx: Context): Promise<number> {
  const store = await ctx.config();
  const rows = Object.entries(store.profiles())
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, profile]) => profileRow(store, name, profile));
  await createPrinter(ctx).list(profileView, (async function* () {
    if (rows.length) yield rows;
  })());
  return 0;
}
