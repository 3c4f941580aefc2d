// docs/manifest.schema.json: what `npm run gen` writes from the one zod schema of the seed
// format, and a JSON Schema a standard validator (Ajv, draft 2020-12) takes: it accepts the
// demo data set and refuses what pctl refuses by shape.
import test from 'ava';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedJsonSchema } from '../src/api/seed.js';
import { demoSeed } from '../src/server/data/demo.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const published = readFileSync(resolve(root, 'docs/manifest.schema.json'), 'utf8');

test('docs/manifest.schema.json is what `npm run gen` produces from the zod schema', (t) => {
  t.true(published === seedJsonSchema(), 'docs/manifest.schema.json is stale: run `npm run gen` and commit the result');
});

test('a standard validator takes the schema: the demo data passes, mistakes of shape do not', (t) => {
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(published));
  t.true(validate(JSON.parse(JSON.stringify(demoSeed()))), JSON.stringify(validate.errors));
  const bad = {
    organizations: [{
      name: 'acme',
      groups: [{ name: 'Platform', identities: [{ name: 'bot', claimMatch: { issuer: 'https://ci.example', subject: 'x' }, colour: 'blue' }] }],
    }],
  };
  t.false(validate(bad));
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`);
  t.true(problems.includes('/organizations/0/groups/0/name pattern'), problems.join('\n'));
  t.true(problems.includes('/organizations/0/groups/0/identities/0 additionalProperties'), problems.join('\n'));
});
