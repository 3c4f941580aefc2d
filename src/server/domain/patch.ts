// A partial update as the domain takes it: the fields that change, by dotted path, whatever
// surface read them (a REST body and its field mask, an MCP tool's arguments).
import { invalidArgument, type FieldViolation } from '../../api/errors.js';
import type { FieldRule } from '../../api/schemas.js';

/** Changed fields by dotted path (`claimMatch.subject`); a value of undefined clears the field. */
export type Changes = Map<string, unknown>;

/**
 * The new values of the string fields an update changes, each held to the rule it has on
 * create (src/api/schemas.ts, UPDATE_RULES); every violation is reported at once. A field
 * the update leaves alone is undefined; a cleared one is '' (and must be allowed empty).
 */
export function ruledChanges<F extends string>(changes: Changes, rules: Readonly<Record<F, FieldRule>>): Partial<Record<F, string>> {
  const out: Partial<Record<F, string>> = {};
  const violations: FieldViolation[] = [];
  for (const field of Object.keys(rules) as F[]) {
    if (!changes.has(field)) continue;
    const v = changes.get(field);
    const value = v === undefined || v === null ? '' : v;
    const problem = typeof value === 'string' ? rules[field](value) : 'must be a string';
    if (problem) violations.push({ field, description: problem });
    else out[field] = value as string;
  }
  if (violations.length) throw invalidArgument(violations);
  return out;
}

