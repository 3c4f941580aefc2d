// Reading a manifest file: YAML (or JSON, which YAML reads too) parsed with positions, then
// validated as a whole by the seed format's one validator (src/api/seed.ts). Every problem
// comes back as `path: message` with the line it is on, before any request is sent.
// Loaded only by export, diff and apply: the yaml module never loads for other commands.
import { readFile } from 'node:fs/promises';
import type { FieldViolation } from '../../api/errors.js';
import type { SeedDocument } from '../../api/seed.js';
import { UsageError } from '../errors.js';

/** A problem of a manifest: its path in the document, what is wrong, and its line (1-based) when known. */
interface ManifestProblem extends FieldViolation {
  line?: number;
}

/** A manifest that does not validate (exit 2): each problem as `FILE:LINE: path: message`. */
class ManifestError extends UsageError {
  constructor(readonly file: string, readonly problems: ManifestProblem[]) {
    super(
      `${file} is not a valid manifest (${problems.length} problem${problems.length === 1 ? '' : 's'}); nothing was changed`,
      problems.map((p) => ({ field: `${p.line ? `line ${p.line}: ` : ''}${p.field}`, description: p.description })),
    );
    this.name = 'ManifestError';
  }
}

/** `organizations[0].groups[1].name` → ['organizations', 0, 'groups', 1, 'name']. */
function parsePath(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return out;
}

/** Reads and validates a manifest file ('-' is stdin). */
export async function readManifest(file: string, stdin: NodeJS.ReadableStream): Promise<SeedDocument> {
  let text: string;
  try {
    text = file === '-' ? await readAll(stdin) : await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  return parseManifest(text, file);
}

/**
 * Parses manifest text and validates it as a whole; a ManifestError lists every problem with
 * its line. JSON takes the fast path; YAML (and JSON with problems) is read with positions.
 */
async function parseManifest(text: string, file: string): Promise<SeedDocument> {
  const { checkDocument } = await import('../../api/seed.js');
  if (/^\s*\{/.test(text)) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined; // the YAML reader below says where
    }
    const { doc } = raw === undefined ? {} : checkDocument(raw, 'manifest');
    if (doc) return doc;
  }
  const YAML = (await import('yaml')).default;
  const lineCounter = new YAML.LineCounter();
  const parsed = YAML.parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (parsed.errors.length) {
    throw new ManifestError(file, parsed.errors.map((e) => ({
      field: '(document)', description: `is not valid YAML or JSON: ${e.message.split('\n')[0]}`, line: lineCounter.linePos(e.pos[0]).line,
    })));
  }
  const { doc, problems } = checkDocument(parsed.toJS() ?? {}, 'manifest');
  if (doc) return doc;
  throw new ManifestError(file, problems.map((p) => {
    // The line of the entry itself, else of the nearest ancestor that exists (a missing field: its object).
    for (let path = parsePath(p.field); path.length; path = path.slice(0, -1)) {
      const node = parsed.getIn(path, true) as { range?: [number, number, number] } | undefined;
      if (node?.range) return { ...p, line: lineCounter.linePos(node.range[0]).line };
    }
    return p;
  }));
}

/** A document as YAML (block style, claim matches and role bindings one per line) or JSON. */
export async function formatDocument(doc: SeedDocument, format: 'yaml' | 'json'): Promise<string> {
  if (format === 'json') return `${JSON.stringify(doc, null, 2)}\n`;
  const YAML = (await import('yaml')).default;
  const document = new YAML.Document(doc);
  YAML.visit(document, {
    Map(_key, node, path) {
      const parent = path[path.length - 1];
      const grand = path[path.length - 2];
      if (YAML.isSeq(parent) && YAML.isPair(grand) && YAML.isScalar(grand.key) && grand.key.value === 'roleBindings') node.flow = true;
      if (YAML.isPair(parent) && YAML.isScalar(parent.key) && parent.key.value === 'claimMatch') node.flow = true;
    },
  });
  return document.toString({ lineWidth: 0 });
}

async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += chunk.toString();
  return text;
}
