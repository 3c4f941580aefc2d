// pctl config list: every profile, `*` marking the current one; tokens masked.
// A read: config.json is read as it is, without conf (and its JSON-schema machinery) — a
// simple command's start is measured (npm run bench -- --startup).
import { readConfigFile } from '../../../config/file.js';
import { createPrinter } from '../../../output/print.js';
import type { Context } from '../../context.js';
import { profileRow, profileView } from '../../shared/profiles.js';

export async function run(ctx: Context): Promise<number> {
  const file = readConfigFile(ctx.env.PCTL_CONFIG_DIR);
  const current = { currentProfileName: () => (typeof file.currentProfile === 'string' && file.currentProfile ? file.currentProfile : undefined) };
  const rows = Object.entries(file.profiles ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, profile]) => profileRow(current, name, profile));
  await createPrinter(ctx).list(profileView, (async function* () {
    if (rows.length) yield rows;
  })());
  return 0;
}
