// pctl libraries count [--ecosystem java|python]…: GET /libraries/v2/artifacts/count.
import { artifacts } from '../../../api/resources.js';
import { ArtifactCounts } from '../../../api/schemas.js';
import { col } from '../../../output/columns.js';
import { createPrinter } from '../../../output/print.js';
import type { Context } from '../../context.js';
import { ecosystems } from './ecosystems.js';

type Count = { ecosystem: string; totalCount: string };
const view = { noun: 'counts', id: (c: Count) => c.ecosystem, columns: [col<Count>('ECOSYSTEM', (c) => c.ecosystem), col<Count>('LIBRARIES', (c) => c.totalCount)] };

export async function run(ctx: Context, _args: string[], opts: { ecosystem?: string[] | undefined }): Promise<number> {
  const client = await ctx.client();
  const query = ecosystems(opts.ecosystem).map((e) => ['ecosystems', e] as [string, string]);
  const { counts } = await client.http.requestValid('GET', `${artifacts.path}/count`, ArtifactCounts, { query });
  await createPrinter(ctx).list(view, (async function* () { yield counts; })());
  return 0;
}
