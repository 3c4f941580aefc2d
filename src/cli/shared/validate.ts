// Client-side checks of what the spec fixes, made before any request (exit 2) and worded
// exactly as the server words them, so the user sees one message either way. The field
// rules themselves are the wire contract's (src/api/schemas.ts), shared with the server.
import { UPDATE_RULES, type FieldRule } from '../../api/schemas.js';
import { UsageError } from '../errors.js';

/** A flag's value held to its field's rule; an absent flag passes. */
export function checkField(field: string, rule: FieldRule, value: string | undefined): void {
  if (value === undefined) return;
  const problem = rule(value);
  if (problem) throw UsageError.invalidField(field, problem);
}

/** Each given field held to the rule it has in UPDATE_RULES[kind] (create and update share them). */
export function checkFields<K extends keyof typeof UPDATE_RULES>(kind: K, values: { [F in keyof (typeof UPDATE_RULES)[K]]?: string | undefined }): void {
  const rules = UPDATE_RULES[kind] as Record<string, FieldRule>;
  for (const [field, value] of Object.entries(values) as [string, string | undefined][]) checkField(field, rules[field]!, value);
}

export function checkNotEmpty(field: string, value: string | undefined): void {
  if (value !== undefined && value.trim() === '') throw UsageError.invalidField(field, 'is required');
}

/** An update with no field flags would be a no-op PATCH: say so instead. */
export function checkSomethingToUpdate(mask: readonly string[], flags: readonly string[]): void {
  if (!mask.length) throw new UsageError(`nothing to update: pass at least one of ${flags.join(', ')}`);
}
