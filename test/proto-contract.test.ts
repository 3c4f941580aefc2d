// The published .proto definitions (proto/) and the zod wire contract (src/api/schemas.ts)
// describe the same messages: for every registry resource the same JSON field names (what a
// request may only send, INPUT_ONLY, aside), compatible types, the registry's output-only
// fields marked OUTPUT_ONLY; and real resources, as serve sends them, go JSON → protobuf →
// JSON unchanged. The definitions are built with buf (scripts/buf.mjs), as `npm test`'s lint step does.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createFileRegistry, fromBinary, fromJson, getOption, ScalarType, toJson, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import type { z } from 'zod';
import { registry as resources } from '../src/api/registry/index.js';
import { wireSchema } from '../src/api/schemas.js';
import { demoSeed } from '../src/server/data/demo.js';
import { startTestServer, tempDir } from './helpers/serve.js';

const root = join(import.meta.dirname, '..');

function buildDescriptors() {
  const out = join(tempDir('pctl-proto-'), 'platform.binpb');
  execFileSync(process.execPath, [join(root, 'scripts/buf.mjs'), 'build', '-o', out], { cwd: root });
  const set = fromBinary(FileDescriptorSetSchema, readFileSync(out));
  rmSync(out);
  return createFileRegistry(set);
}
const protos = buildDescriptors();
const behaviorExt = protos.getExtension('google.api.field_behavior')!;
const OUTPUT_ONLY = 3;
const INPUT_ONLY = 4;

function behaviors(field: DescField): number[] {
  return (getOption(field, behaviorExt) as number[] | undefined) ?? [];
}

/** The proto message of a registry resource: platform.<domain>.v2.<kind>, the domain from its REST path. */
function messageOf(d: (typeof resources)[number]): DescMessage {
  const domain = d.path.split('/')[1]!;
  const message = protos.getMessage(`platform.${domain}.v2.${d.kind}`);
  if (!message) throw new Error(`no message platform.${domain}.v2.${d.kind}`);
  return message;
}

/** The zod type under optional/default wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema as unknown as { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } };
  while (['optional', 'default', 'nullable', 'pipe'].includes(s.def.type)) s = (s.def.innerType ?? s.def.in) as unknown as typeof s;
  return s as unknown as z.ZodType;
}

/** Whether a proto field and a zod type describe the same JSON. */
function compatible(field: DescField, schema: z.ZodType): string | undefined {
  const type = (unwrap(schema) as unknown as { def: { type: string } }).def.type;
  const expected = (() => {
    switch (field.fieldKind) {
      case 'list': return 'array';
      case 'map': return 'record';
      case 'enum': return 'enum|string';
      case 'message':
        if (field.message.typeName === 'google.protobuf.Timestamp') return 'string';
        if (field.message.typeName === 'google.protobuf.Struct') return 'record';
        return 'object';
      case 'scalar': {
        const name = field.scalar;
        // int64 and friends travel as decimal strings (proto3 JSON); 32-bit integers as numbers.
        if ([ScalarType.INT64, ScalarType.UINT64, ScalarType.FIXED64, ScalarType.SFIXED64, ScalarType.SINT64].includes(name)) return 'string';
        if (name === ScalarType.BOOL) return 'boolean';
        if (name === ScalarType.STRING) return 'string';
        return 'number';
      }
    }
  })();
  return expected.split('|').includes(type) ? undefined : `${field.jsonName}: proto says ${expected}, zod says ${type}`;
}

test('every registry resource has a proto message with the zod schema\'s fields, types and output-only fields', (t) => {
  t.true(resources.length >= 11);
  for (const d of resources) {
    const message = messageOf(d);
    const shape = (wireSchema(d) as unknown as { shape: Record<string, z.ZodType> }).shape;
    const sent = message.fields.filter((f) => !behaviors(f).includes(INPUT_ONLY));
    t.deepEqual(sent.map((f) => f.jsonName).sort(), Object.keys(shape).sort(), `${d.kind}: field names`);
    for (const f of sent) {
      if (shape[f.jsonName]) t.is(compatible(f, shape[f.jsonName]!), undefined, `${d.kind}`);
    }
    for (const field of d.outputOnly) {
      const f = message.fields.find((x) => x.jsonName === field);
      t.truthy(f && behaviors(f).includes(OUTPUT_ONLY), `${d.kind}.${field} is OUTPUT_ONLY in the proto`);
    }
  }
});

/** JSON as protobuf-es writes it, compared with what serve sent: timestamps as instants, input-only fields and empty maps dropped. */
function normalize(value: unknown, message?: DescMessage): unknown {
  if (Array.isArray(value)) return value.map((v) => normalize(v, message));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const field = message?.fields.find((f) => f.jsonName === k);
      if (field && behaviors(field).includes(INPUT_ONLY)) continue;
      // An empty map (ClaimMatch's claims, claimPatterns) is left out of serve's JSON, as the spec's identities show none.
      if (field?.fieldKind === 'map' && v && typeof v === 'object' && Object.keys(v).length === 0) continue;
      const sub = field?.fieldKind === 'message' || (field?.fieldKind === 'list' && field.listKind === 'message') ? field.message : undefined;
      out[k] = normalize(v, sub);
    }
    return out;
  }
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  return value;
}

test('real resources from serve go REST JSON → protobuf → JSON unchanged', async (t) => {
  const srv = await startTestServer({ seed: demoSeed() });
  t.teardown(() => srv.dispose());
  let checked = 0;
  for (const d of resources) {
    const query = d.listDefaults ? `?${Object.entries(d.listDefaults).map(([k, v]) => `${k}=${v.join(',')}`).join('&')}` : '';
    const page = await srv.call('GET', `${d.path}${query}${query ? '&' : '?'}page_size=3`);
    const items = (page.json[d.plural] ?? []) as unknown[];
    const message = messageOf(d);
    for (const item of items) {
      const back = toJson(message, fromJson(message, item as never), { alwaysEmitImplicit: true });
      t.deepEqual(normalize(back, message), normalize(item, message), `${d.kind}`);
      checked++;
    }
  }
  t.true(checked >= 15, `only ${checked} resources checked`);
});
