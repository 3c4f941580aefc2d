// pctl advisories documents [--package NAME] [--cve ID]…: GET /advisory/v2/documents (not paged).
// A table row per advisory (package, id, aliases, latest event); JSON and YAML print the documents.
import * as z from 'zod';
import { AdvisoryDocument } from '../../../api/schemas.js';
import { col, timeCol } from '../../../output/columns.js';
import { createPrinter } from '../../../output/print.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import type { documentsFlags } from './index.js';

type Document = z.output<typeof AdvisoryDocument>;
type Row = Document['advisories'][number] & { package: string };

const kindOf = (e: Record<string, unknown>) => Object.keys(e).find((k) => k !== 'timestamp') ?? '';
const latest = (r: Row) => r.events.reduce<Row['events'][number] | undefined>((a, e) => (!a || e.timestamp > a.timestamp ? e : a), undefined);

const view = {
  noun: 'advisory documents',
  id: (r: Row) => r.id,
  columns: [
    col<Row>('PACKAGE', (r) => r.package, { keep: true }),
    col<Row>('ADVISORY', (r) => r.id, { keep: true }),
    col<Row>('ALIASES', (r) => r.aliases.join(','), { shrink: true }),
    col<Row>('LATEST EVENT', (r) => { const e = latest(r); return e ? kindOf(e) : ''; }),
    timeCol<Row>('AT', (r) => latest(r)?.timestamp),
    col<Row>('NAMESPACE', (r) => r.packageNamespace, { wide: true }),
    col<Row>('EVENTS', (r) => r.events.length, { wide: true }),
  ],
};

export async function run(ctx: Context, _args: string[], opts: FlagValues<typeof documentsFlags>): Promise<number> {
  const client = await ctx.client();
  const query: [string, string][] = [];
  if (opts.package !== undefined) query.push(['id', opts.package]);
  for (const cve of opts.cve ?? []) query.push(['cves', cve]);
  const { documents } = await client.http.requestValid('GET', '/advisory/v2/documents', z.looseObject({ documents: z.array(AdvisoryDocument).default([]) }), { query });
  const printer = createPrinter(ctx);
  const structured = ['json', 'yaml', 'ndjson'].includes(ctx.globals.output ?? '') || ctx.globals.jq !== undefined;
  if (structured) {
    await printer.list({ noun: 'advisory documents', id: (d: Document) => d.id, columns: [] }, (async function* () { yield documents; })());
    return 0;
  }
  const rows: Row[] = documents.flatMap((d) => d.advisories.map((a) => ({ ...a, package: d.id })));
  await printer.list(view, (async function* () { yield rows; })());
  return 0;
}
