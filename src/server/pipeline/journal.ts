// The request journal: the last N calls serve answered, in memory, for `GET /_pctl/requests`
// and `pctl serve requests`. Bodies are shown with every secret masked by their structure
// (src/api/redact.ts; a page by the values its handler declared), and cut at BODY_MAX characters.
import type { JournalEntry } from '../../api/journal.js';
import { redactText, redactUrl } from '../../api/redact.js';

export type { JournalEntry };

export const DEFAULT_JOURNAL_SIZE = 1000;
const BODY_MAX = 4096;


/**
 * A call as the dispatcher records it: the query's text, masking and the bodies' text wait
 * until the entry is read, so that a call pays only for pushing this object. The dispatcher
 * gives every field (undefined when the call had none): objects of one shape are made fastest.
 */
export interface JournalInput {
  /** Epoch milliseconds. */
  timeMs: number;
  method: string;
  /** The path as sent, and its query when it has one (not changed once the call is answered). */
  path: string;
  query?: URLSearchParams | undefined;
  rpc?: string | undefined;
  status: number;
  durationMs: number;
  identity?: string | undefined;
  matched: boolean;
  fault?: JournalEntry['fault'];
  deprecated?: JournalEntry['deprecated'];
  requestBody?: (() => string) | undefined;
  /** The text, or (a body not yet serialized) how to make it. */
  responseBody?: string | (() => string) | undefined;
}

type Recorded = { seq: number; input: JournalInput; entry?: JournalEntry };

/**
 * A body as the journal shows it. Whatever a stored value holds, this never throws: a body
 * that cannot be rendered is shown as a note saying so, and the entry and the listing stand.
 */
function shown(body: string | (() => string) | undefined): string | undefined {
  let m: string;
  try {
    const text = typeof body === 'function' ? body() : body;
    if (text === undefined || text === '') return undefined;
    m = redactText(text);
  } catch (err) {
    return `(not shown: the body could not be rendered: ${err instanceof Error ? err.message : 'unknown error'})`;
  }
  return m.length > BODY_MAX ? `${m.slice(0, BODY_MAX)}… (${m.length} characters)` : m;
}

function isoTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}

function materialize(r: Recorded): JournalEntry {
  if (r.entry) return r.entry;
  const { timeMs, method, path, query, rpc, status, durationMs, identity, matched, fault, deprecated, requestBody, responseBody } = r.input;
  const entry: JournalEntry = {
    seq: r.seq, time: isoTime(timeMs), method, path: redactUrl(query ? `${path}?${query.toString()}` : path),
    ...(rpc ? { rpc } : {}),
    status, durationMs,
    ...(identity ? { identity } : {}),
    matched,
    ...(fault ? { fault } : {}),
    ...(deprecated ? { deprecated } : {}),
  };
  const req = shown(requestBody);
  const res = shown(responseBody);
  if (req !== undefined) entry.requestBody = req;
  if (res !== undefined) entry.responseBody = res;
  r.entry = entry;
  delete (r as { input?: JournalInput }).input; // the bodies are text now: let the objects go
  return entry;
}

export class Journal {
  readonly size: number;
  #entries: Recorded[] = [];
  #seq = 0;
  #listeners = new Set<() => void>();

  /** `size` entries at most (0: nothing is recorded). */
  constructor(size = DEFAULT_JOURNAL_SIZE) {
    this.size = size;
  }

  record(input: JournalInput): void {
    if (this.size === 0) return;
    this.#entries.push({ seq: ++this.#seq, input });
    if (this.#entries.length > this.size * 2) this.#entries.splice(0, this.#entries.length - this.size);
    for (const l of this.#listeners) l();
  }

  /** Entries with seq > after, oldest first, at most `limit` (the newest ones when more). */
  since(after = 0, limit = this.size): JournalEntry[] {
    const kept = this.#entries.slice(-this.size);
    const newer = kept.filter((r) => r.seq > after);
    return newer.slice(Math.max(0, newer.length - Math.min(limit, this.size))).map(materialize);
  }

  /** The seq of the newest entry (0 when none yet). */
  get last(): number {
    return this.#seq;
  }

  /** Calls `listener` after each new entry until the returned function is called. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  clear(): void {
    this.#entries = [];
  }
}
