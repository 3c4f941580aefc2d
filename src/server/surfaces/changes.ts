// Partial updates as typed changes, resolved at the surfaces that speak the spec's JSON (REST,
// gRPC, v1, MCP) before the operation runs; the same for every updatable resource (spec, "Partial update rules"):
// 1. a PATCH changes only the fields it names;
// 2. without updateMask, the fields present in the body change and nothing else;
// 3. with updateMask, exactly the listed fields change and the rest of the body is ignored
//    (a listed field missing from the body is cleared);
// 4. the same for every resource.
import { invalidArgument, invalidField, type FieldViolation } from '../../api/errors.js';
import type { ResourceDescriptor } from '../../api/resources.js';
import type { Changes } from '../domain/patch.js';
import { singleParam } from '../base/params.js';

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export function resolveChanges(body: unknown, rawMask: string | null, desc: Pick<ResourceDescriptor, 'updatable' | 'outputOnly' | 'kind'>): Changes {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidField('body', 'must be a JSON object');
  const obj = body as Record<string, unknown>;
  // Only leaves are applied; a parent path (claimMatch) stands for all its leaves.
  const leaves = desc.updatable.filter((f) => !desc.updatable.some((g) => g.startsWith(`${f}.`)));
  const expand = (path: string) => (leaves.includes(path) ? [path] : leaves.filter((l) => l.startsWith(`${path}.`)));
  const changes: Changes = new Map();

  if (rawMask !== null && rawMask.trim() !== '') {
    // The mask picks among the resource's fields; a key that is none of them is still a mistake.
    const unknown = unknownKeys(obj, desc);
    if (unknown.length) throw invalidArgument(unknown);
    const violations: FieldViolation[] = [];
    const fields = rawMask.split(',').map((f) => f.trim()).filter(Boolean);
    for (const raw of fields) {
      if (raw === '*') {
        for (const leaf of leaves) {
          const notObject = nonObjectOnPath(obj, leaf, leaves);
          if (!notObject) changes.set(leaf, lookup(obj, leaf));
          else if (!violations.some((v) => v.field === notObject)) violations.push({ field: notObject, description: 'must be an object' });
        }
        continue;
      }
      const field = raw.split('.').map(camel).join('.');
      if (desc.outputOnly.includes(field)) {
        violations.push({ field: 'updateMask', description: `${raw} is output only and cannot be updated` });
      } else if (!desc.updatable.includes(field)) {
        violations.push({ field: 'updateMask', description: `${raw} is not an updatable field of ${desc.kind} (updatable: ${desc.updatable.join(', ') || 'none'})` });
      } else {
        const notObject = nonObjectOnPath(obj, field, leaves);
        if (notObject) violations.push({ field: notObject, description: 'must be an object' });
        else for (const leaf of expand(field)) changes.set(leaf, lookup(obj, leaf));
      }
    }
    if (violations.length) throw invalidArgument(violations);
    return changes;
  }

  const violations: FieldViolation[] = [];
  for (const [key, value] of Object.entries(obj)) {
    if (desc.outputOnly.includes(key)) continue; // echoing a fetched resource back is fine
    if (!desc.updatable.includes(key)) {
      violations.push({ field: key, description: 'is not a known field' });
      continue;
    }
    if (leaves.includes(key)) {
      changes.set(key, value);
    } else if (!isObject(value)) {
      // claimMatch: null (or "x") named no leaf: it changed nothing, yet got a 200.
      violations.push({ field: key, description: 'must be an object' });
    } else {
      // {claimMatch: {subjct: "x"}} changed nothing either: a typo is an error here as at the top level.
      for (const sub of Object.keys(value)) {
        if (!desc.updatable.includes(`${key}.${sub}`)) violations.push({ field: `${key}.${sub}`, description: 'is not a known field' });
      }
      for (const leaf of expand(key)) {
        const v = lookup(obj, leaf);
        if (v !== undefined) changes.set(leaf, v);
      }
    }
  }
  if (violations.length) throw invalidArgument(violations);
  return changes;
}

const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** The body's keys that name no field of the resource, and the keys under its object fields that name none of theirs. */
function unknownKeys(obj: Record<string, unknown>, desc: Pick<ResourceDescriptor, 'updatable' | 'outputOnly'>): FieldViolation[] {
  const out: FieldViolation[] = [];
  for (const [key, value] of Object.entries(obj)) {
    if (desc.outputOnly.includes(key)) continue;
    if (!desc.updatable.includes(key)) out.push({ field: key, description: 'is not a known field' });
    else if (isObject(value) && desc.updatable.some((f) => f.startsWith(`${key}.`))) {
      for (const sub of Object.keys(value)) if (!desc.updatable.includes(`${key}.${sub}`)) out.push({ field: `${key}.${sub}`, description: 'is not a known field' });
    }
  }
  return out;
}

/**
 * The first object field on the way to a masked `path` that the body holds as something
 * other than an object (`claimMatch: null` for `claimMatch` or `claimMatch.subject`). An
 * absent one is fine: the mask then clears the fields (rule 3).
 */
function nonObjectOnPath(obj: Record<string, unknown>, path: string, leaves: readonly string[]): string | undefined {
  const parts = path.split('.');
  let cur: unknown = obj;
  for (let i = 0; i < parts.length; i++) {
    const prefix = parts.slice(0, i + 1).join('.');
    cur = (cur as Record<string, unknown>)[parts[i]!];
    if (cur === undefined || leaves.includes(prefix)) return undefined;
    if (!isObject(cur)) return prefix;
  }
  return undefined;
}

function lookup(obj: Record<string, unknown>, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The updateMask query parameter (or update_mask), given at most once; null when absent. */
export function updateMaskParam(query: URLSearchParams): string | null {
  return singleParam(query, 'updateMask', ['updateMask', 'update_mask']) ?? null;
}
