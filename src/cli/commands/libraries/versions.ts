// pctl libraries versions LIBRARY [paging flags]: LIBRARY a uid or an exact name.
import { artifacts } from '../../../api/resources.js';
import { ArtifactVersion, type ArtifactVersion as Version } from '../../../api/schemas.js';
import { encodeUidPath } from '../../../client/index.js';
import { col, timeCol, uidCol } from '../../../output/columns.js';
import type { PagingFlags } from '../../command.js';
import type { Context } from '../../context.js';
import { paginateOptions, printPaged } from '../../shared/list.js';
import { resolver } from '../../shared/resolve.js';

const view = {
  noun: 'versions',
  id: (v: Version) => v.uid,
  columns: [
    col<Version>('VERSION', (v) => v.version, { keep: true }),
    col<Version>('SIZE', (v) => v.sizeBytes),
    timeCol<Version>('UPDATED', (v) => v.updateTime),
    col<Version>('NAME', (v) => v.name, { wide: true }),
    uidCol<Version>({ wide: true }),
    col<Version>('DESCRIPTION', (v) => v.description, { wide: true, shrink: true }),
  ],
};

export async function run(ctx: Context, [ref]: string[], opts: PagingFlags): Promise<number> {
  const uid = await resolver(ctx).uid(artifacts, ref!);
  const client = await ctx.client();
  // No default order here: the server lists versions oldest first, which reads better than
  // sorting version strings as text (1.10 before 1.9).
  const versions = client.listCollection(`${artifacts.path}/${encodeUidPath(uid)}/versions`, 'artifactVersions', ArtifactVersion, paginateOptions(opts, null));
  await printPaged(ctx, view, versions, 'artifactVersions', opts);
  return 0;
}
