// The two pieces of undici the CLI uses (Agent, request), loaded without undici's index:
// the index also loads fetch, WebSocket, EventSource, caches and mocks, ~55 ms of a ~250 ms
// command on these machines. undici has no "exports" map, so these are plain files of the
// package; should a future version move them, the whole package is loaded instead.
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';

const require = createRequire(import.meta.url);

type RequestFn = (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

function load(): { Agent: typeof UndiciAgent; requestFn: RequestFn } {
  try {
    return {
      Agent: require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent,
      requestFn: (require('undici/lib/api/index.js') as { request: RequestFn }).request,
    };
  } catch {
    const full = require('undici') as typeof import('undici');
    return { Agent: full.Agent, requestFn: full.Dispatcher.prototype.request as unknown as RequestFn };
  }
}

const loaded = load();
export const Agent = loaded.Agent;
export type Agent = UndiciAgent;
export type { Dispatcher };

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher };

/** undici's `request(url, opts)`, on the given dispatcher. */
export function request(url: string, opts: RequestOptions): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = opts;
  const u = new URL(url);
  return loaded.requestFn.call(dispatcher, { ...rest, origin: u.origin, path: `${u.pathname}${u.search}` });
}
