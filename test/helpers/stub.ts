// The one stub HTTP server of the tests that script what "the API" answers, or that it never
// answers. It listens on 127.0.0.1, records each request as it arrives, lets a handler answer
// (or not), and says when the n-th request has arrived: an event a test acts on (fire a
// deadline, send Ctrl-C) instead of a timer. It closes in the test's teardown and fails the
// test when no request ever reached it (a stub nobody called proves nothing), unless the test
// says it expects none; then a request that does arrive fails it.
import type { ExecutionContext } from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface StubRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The request body; complete once the handler runs ('' before). */
  body: string;
}

/** Answers request number `n` (1-based); leaving `res` alone makes a server that never answers. */
export type StubHandler = (req: StubRequest, res: http.ServerResponse, n: number) => void;

export interface StubOptions {
  /** Listen on this port (default 0: any free one). */
  port?: number;
  /** The test shows that nothing is sent: no request is fine, and one fails the test. */
  expectNoRequests?: boolean;
}

export interface Stub {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** The requests so far, in arrival order (each is recorded as soon as its headers are in). */
  requests: StubRequest[];
  /** Resolves with the n-th request (1-based, default 1) once it has arrived. */
  arrived(n?: number): Promise<StubRequest>;
  /** Closes the server and its connections now (teardown does it otherwise); idempotent. */
  close(): Promise<void>;
}

/** Starts a stub server for the test `t`; see the top of this file. */
export async function stub(t: ExecutionContext, handler: StubHandler, opts: StubOptions = {}): Promise<Stub> {
  const requests: StubRequest[] = [];
  const waiters: { n: number; resolve: (req: StubRequest) => void }[] = [];
  let handlerError: Error | undefined;
  const server = http.createServer((req, res) => {
    const seen: StubRequest = { method: req.method!, url: req.url!, headers: req.headers, body: '' };
    requests.push(seen);
    const n = requests.length;
    for (const w of waiters.filter((w) => w.n === n)) w.resolve(seen);
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.body = body;
      try {
        handler(seen, res, n);
      } catch (err) {
        handlerError ??= err as Error;
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  t.teardown(async () => {
    await close();
    if (handlerError) throw handlerError;
    const list = requests.map((r) => `${r.method} ${r.url}`).join(', ');
    if (opts.expectNoRequests && requests.length) throw new Error(`the stub at ${url} expected no request, got: ${list}`);
    if (!opts.expectNoRequests && !requests.length) {
      throw new Error(`no request reached the stub at ${url}: the test did not exercise it (say { expectNoRequests: true } if that is the point)`);
    }
  });
  return {
    url,
    port,
    requests,
    arrived: (n = 1) =>
      n <= requests.length ? Promise.resolve(requests[n - 1]!) : new Promise((resolve) => waiters.push({ n, resolve })),
    close,
  };
}

/** A port nothing listens on (it was free a moment ago): a connection to it is refused. */
export async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * A deadline the test fires on an event, for ClientOptions.deadline or Clock.deadline: each
 * call records the milliseconds asked for and hands out a signal; fire() aborts the signals
 * handed out so far, as AbortSignal.timeout would (a TimeoutError).
 */
export function manualDeadline(): { deadline: (ms: number) => AbortSignal; asked: number[]; fire: () => void } {
  const asked: number[] = [];
  const pending: AbortController[] = [];
  return {
    deadline: (ms) => {
      asked.push(ms);
      const c = new AbortController();
      pending.push(c);
      return c.signal;
    },
    asked,
    fire: () => {
      for (const c of pending.splice(0)) c.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    },
  };
}

/** A deadline that never passes: the test's own timeout is the only bound (a hang guard). */
export const noDeadline = (): AbortSignal => new AbortController().signal;
