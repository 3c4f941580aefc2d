// The OpenAPI 3.1 document of serve's REST routes: openapi.json at the package root, made
// from proto/ by `npm run gen` (scripts/protoc-gen-openapi.ts). serve sends it at
// GET /openapi.json; `pctl serve openapi` prints it.
import { readFileSync } from 'node:fs';

/** Two levels below the package root in src/, in dist/ and in the bundle (dist/bundle/) alike. */
const DOCUMENT = new URL('../../openapi.json', import.meta.url);

let text: string | undefined;

/** The document's JSON text, read once. */
export function openApiDocument(): string {
  return (text ??= readFileSync(DOCUMENT, 'utf8'));
}
