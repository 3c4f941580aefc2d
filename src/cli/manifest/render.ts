// A plan as a reviewer reads it: under each group's name path, `+` create, `~` update with
// `field: old → new` beneath, `-` delete; coloured on a terminal, plain in a pipe; or as
// JSON for machines.
import { KIND_LABEL, KIND_ORDER, type Change, type Plan } from './plan.js';

export interface Paint {
  add: (s: string) => string;
  change: (s: string) => string;
  remove: (s: string) => string;
  heading: (s: string) => string;
}

export const plainPaint: Paint = { add: (s) => s, change: (s) => s, remove: (s) => s, heading: (s) => s };

export async function terminalPaint(): Promise<Paint> {
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return { add: chalk.green, change: chalk.yellow, remove: chalk.red, heading: chalk.bold };
}

const SIGN = { create: '+', update: '~', delete: '-' } as const;

/** A field's value in one line: strings quoted (an empty one shows), the rest as JSON. */
function formatValue(v: unknown): string {
  return v === undefined ? '(none)' : JSON.stringify(v);
}

/** Changes in reading order: by group path, then kind, then name. */
function sorted(changes: readonly Change[]): Change[] {
  return [...changes].sort((a, b) =>
    a.where < b.where ? -1 : a.where > b.where ? 1
      : KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.action === 'delete' ? -1 : 1));
}

/** One line for a change: `~ group platform`. */
export function changeLine(c: Change, paint: Paint = plainPaint): string {
  const line = `${SIGN[c.action]} ${KIND_LABEL[c.kind]} ${c.name}`;
  return c.action === 'create' ? paint.add(line) : c.action === 'update' ? paint.change(line) : paint.remove(line);
}

export function renderPlan(plan: Plan, paint: Paint): string {
  const out: string[] = [];
  let where: string | undefined;
  for (const c of sorted(plan.changes)) {
    if (c.where !== where) {
      where = c.where;
      out.push(paint.heading(where));
    }
    out.push(`  ${changeLine(c, paint)}`);
    if (c.action !== 'delete') for (const f of c.fields) out.push(`      ${f.field}: ${formatValue(f.from)} → ${formatValue(f.to)}`);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

function summary(changes: readonly Change[]): { create: number; update: number; delete: number } {
  const count = (a: Change['action']) => changes.filter((c) => c.action === a).length;
  return { create: count('create'), update: count('update'), delete: count('delete') };
}

/** `3 to create, 1 to update, 2 to delete`. */
export function summaryLine(changes: readonly Change[]): string {
  const s = summary(changes);
  return `${s.create} to create, ${s.update} to update, ${s.delete} to delete`;
}

/** What `-o json` prints: every change, the notes and the counts. */
export function planJson(plan: Plan): unknown {
  return {
    changes: sorted(plan.changes).map((c) => ({
      action: c.action, kind: c.kind, path: c.where, name: c.name,
      ...(c.action !== 'delete' && c.fields.length ? { fields: c.fields.map((f) => ({ field: f.field, from: f.from ?? null, to: f.to ?? null })) } : {}),
    })),
    notes: plan.notes,
    summary: summary(plan.changes),
  };
}
