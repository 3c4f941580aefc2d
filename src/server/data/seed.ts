// Seed files as serve reads them: a document of the seed format (src/api/seed.ts: its schema
// and validation, shared with the manifests of pctl export/diff/apply) from YAML or JSON
// text. Loading one into a store is seed-load.ts (through the domain), exporting a store as
// one is seed-export.ts.
import { SeedValidationError, validateSeed, type SeedDocument } from '../../api/seed.js';

export { SeedValidationError, validateSeed } from '../../api/seed.js';
export type { SeedAdvisory, SeedDocument, SeedGroup, SeedIdentity, SeedLibrary, SeedRepo, SeedRole, SeedRoleBinding } from '../../api/seed.js';

/** `--seed` on a data dir that already holds data. */
export class DataDirNotEmptyError extends Error {
  constructor(readonly dataDir: string) {
    super(`${dataDir} already holds data; a seed only loads into an empty data dir (run: pctl serve reset --data ${dataDir} --yes)`);
    this.name = 'DataDirNotEmptyError';
  }
}

/** Parses seed file text (YAML, and so JSON too); a syntax error becomes a SeedValidationError. */
export async function parseSeedText(text: string): Promise<SeedDocument> {
  // JSON (what export writes for a large org, what a generator writes) is read as JSON: the
  // YAML parser took 10 s for 100k groups, JSON.parse 0.1 s. Its duplicate keys: the last wins.
  const json = /^\s*[{[]/.test(text) ? parseJson(text) : undefined;
  if (json !== undefined) return validateSeed(json);
  const YAML = (await import('yaml')).default;
  let raw: unknown;
  try {
    raw = YAML.parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    const e = err as Error & { linePos?: { line: number; col: number }[] };
    const at = e.linePos?.[0] ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '(document)';
    throw new SeedValidationError([{ field: at, description: `is not valid YAML or JSON: ${e.message.split('\n')[0]}` }]);
  }
  if (raw === null || raw === undefined) raw = {};
  return validateSeed(raw);
}

/** The value of JSON text; undefined when it is not JSON (then it is read as YAML, which says where it is wrong). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
