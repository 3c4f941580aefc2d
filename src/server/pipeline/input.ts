// An operation's input from its JSON form (the spec's JSON, whichever surface read it): checked
// against its wire schema, every problem a field violation.
import * as z from 'zod';
import { invalidArgument, type FieldViolation } from '../../api/errors.js';
import * as S from '../../api/schemas.js';

/**
 * Validates a request body against a wire schema; every problem becomes a field violation.
 * Fields the schema does not know come first and alone: a misplaced field (`name` beside
 * `parent` instead of under `group`) would otherwise surface as the rule of the field it left
 * missing (`name: must match …`), never as the mistake it is.
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, extra: FieldViolation[] = []): z.infer<T> {
  const unknown = unknownFields(schema, body);
  if (unknown.length) throw invalidArgument(unknown);
  const result = schema.safeParse(body);
  const violations = result.success ? [] : S.zodViolations(result.error);
  const all = [...extra, ...violations.filter((v) => !extra.some((e) => e.field === v.field))];
  if (all.length) throw invalidArgument(all);
  return result.data as z.infer<T>;
}

/** The object a schema describes under its optional/default/nullable wrappers, if any. */
function objectSchema(schema: z.ZodType): z.ZodObject | undefined {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault || schema instanceof z.ZodNullable) {
    return objectSchema(schema.unwrap() as z.ZodType);
  }
  return undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A violation for each field of `body` its schema has no place for, at any depth, named as
 * other violations are (inside a create wrapper by the resource field alone). At the top level,
 * a field of the wrapped resource (`{parent, name}` for `{parent, group: {name}}`) says where it
 * belongs.
 */
function unknownFields(schema: z.ZodType, body: unknown, path: string[] = []): FieldViolation[] {
  const object = objectSchema(schema);
  if (!object || !isRecord(body)) return [];
  const shape = object.shape as Record<string, z.ZodType>;
  const out: FieldViolation[] = [];
  for (const [key, value] of Object.entries(body)) {
    const field = shape[key];
    if (field) {
      const inner = path.length === 0 && S.CREATE_WRAPPERS.has(key) ? [] : [...path, key];
      out.push(...unknownFields(field, value, inner));
      continue;
    }
    const wrapper = path.length === 0 ? Object.keys(shape).find((k) => S.CREATE_WRAPPERS.has(k) && objectSchema(shape[k]!)?.shape[key]) : undefined;
    out.push({
      field: [...path, key].join('.'),
      description: wrapper
        ? `is not a field of the request body: it belongs under "${wrapper}" ({"parent": …, "${wrapper}": {"${key}": …}})`
        : 'is not a known field',
    });
  }
  return out;
}

/** A group name's violation on create: a missing name breaks the spec's pattern too, and is worded so. */
export function groupNameViolation(name: unknown): FieldViolation | undefined {
  const problem = typeof name === 'string' ? S.groupNameProblem(name) : S.GROUP_NAME_RULE;
  return problem ? { field: 'name', description: problem } : undefined;
}
