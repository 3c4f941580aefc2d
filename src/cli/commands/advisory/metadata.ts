// pctl advisories metadata [--id ID]… [paging flags]: GET /advisory/v2/metadata (paged).
import { VulnerabilityMetadata, type VulnerabilityMetadata as Metadata } from '../../../api/schemas.js';
import { col } from '../../../output/columns.js';
import type { FlagValues, PagingFlags } from '../../command.js';
import type { Context } from '../../context.js';
import { paginateOptions, printPaged } from '../../shared/list.js';
import type { metadataFlags } from './index.js';

const cvss = (m: Metadata) => m.severities.find((s) => s.type === 'CVSS_V3')?.score ?? m.severities[0]?.score ?? '';

const view = {
  noun: 'vulnerability metadata',
  id: (m: Metadata) => m.id,
  columns: [
    col<Metadata>('ID', (m) => m.id, { keep: true }),
    col<Metadata>('SUMMARY', (m) => m.summary, { shrink: true }),
    col<Metadata>('CVSS', cvss, { shrink: true }),
    col<Metadata>('REFERENCES', (m) => m.references.map((r) => r.url).join(' '), { wide: true, shrink: true }),
  ],
};

export async function run(ctx: Context, _args: string[], opts: FlagValues<typeof metadataFlags> & PagingFlags): Promise<number> {
  const { id, ...paging } = opts;
  const client = await ctx.client();
  const query = { ...paginateOptions(paging), ...(id?.length ? { filters: { ids: id } } : {}) };
  await printPaged(ctx, view, client.listCollection('/advisory/v2/metadata', 'vulnerabilityMetadata', VulnerabilityMetadata, query), 'vulnerabilityMetadata', paging);
  return 0;
}
