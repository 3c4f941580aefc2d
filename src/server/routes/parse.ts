// Reading a REST request into a domain operation's input: the body against its wire schema
// (every problem a field violation), and a PATCH's body and updateMask into changes.
import type * as z from 'zod';
import { invalidArgument, type FieldViolation } from '../../api/errors.js';
import * as S from '../../api/schemas.js';
import type { Resource } from '../../api/registry/index.js';
import type { Changes } from '../domain/patch.js';
import type { Request } from '../handler.js';
import { resolveChanges, updateMaskParam } from '../update.js';

/** Validates a request body against a wire schema; every problem becomes a field violation. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, extra: FieldViolation[] = []): z.infer<T> {
  const result = schema.safeParse(body);
  const violations = result.success ? [] : S.zodViolations(result.error);
  const all = [...extra, ...violations.filter((v) => !extra.some((e) => e.field === v.field))];
  if (all.length) throw invalidArgument(all);
  return result.data as z.infer<T>;
}

/** A PATCH's changes (body and updateMask), read when the operation asks (after authorizing the caller). */
export function changesOf(req: Request, d: Resource): () => Promise<Changes> {
  return async () => resolveChanges(await req.json(), updateMaskParam(req.query), d);
}

/** A group name's violation on create: a missing name breaks the spec's pattern too, and is worded so. */
export function groupNameViolation(name: unknown): FieldViolation | undefined {
  const problem = typeof name === 'string' ? S.groupNameProblem(name) : S.GROUP_NAME_RULE;
  return problem ? { field: 'name', description: problem } : undefined;
}
