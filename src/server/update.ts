// Partial updates, the same for every updatable resource (spec, "Partial update rules"):
// 1. a PATCH changes only the fields it names;
// 2. without updateMask, the fields present in the body change and nothing else;
// 3. with updateMask, exactly the listed fields change and the rest of the body is ignored
//    (a listed field missing from the body is cleared);
// 4. the same for every resource.
import { invalidArgument, invalidField, type FieldViolation } from '../api/errors.js';
import type { ResourceDescriptor } from '../api/resources.js';
import { DESCRIPTION_MAX } from '../api/schemas.js';

/** Changed fields by dotted path (`claimMatch.subject`); a value of undefined clears the field. */
export type Changes = Map<string, unknown>;

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export function resolveChanges(body: unknown, rawMask: string | null, desc: Pick<ResourceDescriptor, 'updatable' | 'outputOnly' | 'kind'>): Changes {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidField('body', 'must be a JSON object');
  const obj = body as Record<string, unknown>;
  // Only leaves are applied; a parent path (claimMatch) stands for all its leaves.
  const leaves = desc.updatable.filter((f) => !desc.updatable.some((g) => g.startsWith(`${f}.`)));
  const expand = (path: string) => (leaves.includes(path) ? [path] : leaves.filter((l) => l.startsWith(`${path}.`)));
  const changes: Changes = new Map();

  if (rawMask !== null && rawMask.trim() !== '') {
    const violations: FieldViolation[] = [];
    const fields = rawMask.split(',').map((f) => f.trim()).filter(Boolean);
    for (const raw of fields) {
      if (raw === '*') {
        for (const leaf of leaves) changes.set(leaf, lookup(obj, leaf));
        continue;
      }
      const field = raw.split('.').map(camel).join('.');
      if (desc.outputOnly.includes(field)) {
        violations.push({ field: 'updateMask', description: `${raw} is output only and cannot be updated` });
      } else if (!desc.updatable.includes(field)) {
        violations.push({ field: 'updateMask', description: `${raw} is not an updatable field of ${desc.kind} (updatable: ${desc.updatable.join(', ') || 'none'})` });
      } else {
        for (const leaf of expand(field)) changes.set(leaf, lookup(obj, leaf));
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
    if (value && typeof value === 'object' && !Array.isArray(value) && !leaves.includes(key)) {
      for (const leaf of expand(key)) {
        const v = lookup(obj, leaf);
        if (v !== undefined) changes.set(leaf, v);
      }
    } else {
      changes.set(key, value);
    }
  }
  if (violations.length) throw invalidArgument(violations);
  return changes;
}

function lookup(obj: Record<string, unknown>, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** A string field's new value: undefined or null clears it; anything but a string is a code-3 error. */
export function stringChange(changes: Changes, field: string): string | undefined {
  if (!changes.has(field)) return undefined;
  const v = changes.get(field);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw invalidField(field, 'must be a string');
  return v;
}

/** A description's new value, held to the same limit as on create. */
export function descriptionChange(changes: Changes): string | undefined {
  const description = stringChange(changes, 'description');
  if (description !== undefined && description.length > DESCRIPTION_MAX) {
    throw invalidField('description', `must be at most ${DESCRIPTION_MAX} characters`);
  }
  return description;
}
