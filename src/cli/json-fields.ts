// `--json FIELDS` (gh's flag): print only these fields of each resource, as JSON; combines
// with --jq (the selection comes first). `--json` alone lists the fields of the command's
// resource. Field names come from the resource's wire schema, so zod loads only here.
import type { Command } from 'commander';
import { registry } from '../api/registry/index.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';

/** The fields of the resource a command prints (`groups get` → Group's), when it has one. */
async function fieldsOf(cmd: Command): Promise<string[] | undefined> {
  const noun = cmd.parent?.name();
  const d = registry.find((r) => r.nouns.cli === noun);
  if (!d) return undefined;
  const { wireSchema } = await import('../api/schemas.js');
  const schema = wireSchema(d) as unknown as { shape?: Record<string, unknown> };
  return schema.shape ? Object.keys(schema.shape) : undefined;
}

/**
 * Checks `--json` before the command runs (exit 2 on a mistake) and sets the output to JSON
 * with the selection; `--json` with no fields prints the available ones and returns 2.
 */
export async function selectFields(ctx: Context, cmd: Command, json: true | string): Promise<number | undefined> {
  if (ctx.globals.output !== undefined && ctx.globals.output !== 'json') {
    throw new UsageError(`--json prints JSON: it cannot be combined with -o ${ctx.globals.output}`);
  }
  const available = await fieldsOf(cmd);
  if (json === true) {
    if (!available) throw new UsageError('--json needs the fields to print, e.g. --json uid,name');
    ctx.io.stderr.write(`Specify one or more comma-separated fields for --json:\n${available.map((f) => `  ${f}\n`).join('')}`);
    return 2;
  }
  const fields = json.split(',').map((f) => f.trim()).filter(Boolean);
  if (!fields.length) throw new UsageError('--json needs the fields to print, e.g. --json uid,name');
  const unknown = available ? fields.filter((f) => !available.includes(f)) : [];
  if (unknown.length) {
    throw new UsageError(`--json: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (available: ${available!.join(', ')})`);
  }
  ctx.globals = { ...ctx.globals, output: 'json', fields };
  return undefined;
}
