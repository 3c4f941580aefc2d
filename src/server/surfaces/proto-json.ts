// The fields a proto3 JSON object names that its message has not, at any depth: each a field
// violation named as the spec's routes name theirs (lowerCamelCase paths, `claimMatch.bogus`),
// so that a typo in a published rule's body is refused rather than silently dropped. Either
// spelling of a field is known (`claim_match` or `claimMatch`), as proto3 JSON parsing requires.
import type { DescMessage } from '@bufbuild/protobuf';
import type { FieldViolation } from '../../api/errors.js';

const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

export function unknownJsonFields(desc: DescMessage, json: unknown, path = ''): FieldViolation[] {
  // The well-known types have JSON forms of their own (a Struct holds any key).
  if (!isObject(json) || desc.typeName.startsWith('google.protobuf.')) return [];
  const at = (key: string) => (path ? `${path}.${key}` : key);
  const out: FieldViolation[] = [];
  for (const [key, value] of Object.entries(json)) {
    const field = desc.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field) {
      out.push({ field: at(key), description: 'is not a known field' });
    } else if (field.fieldKind === 'message') {
      out.push(...unknownJsonFields(field.message, value, at(field.jsonName)));
    } else if (field.fieldKind === 'list' && field.listKind === 'message' && Array.isArray(value)) {
      value.forEach((item, i) => out.push(...unknownJsonFields(field.message, item, `${at(field.jsonName)}[${i}]`)));
    } else if (field.fieldKind === 'map' && field.mapKind === 'message' && isObject(value)) {
      for (const [k, item] of Object.entries(value)) out.push(...unknownJsonFields(field.message, item, `${at(field.jsonName)}.${k}`));
    }
  }
  return out;
}
