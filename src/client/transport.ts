// One HTTP exchange on node:http (https loaded only for an https URL), over keep-alive
// agents shared by the process. The CLI used undici here; node's own client starts ~20 ms
// sooner (undici loads http2, tls and compiles its wasm parser on every command; see the
// README's bench), and a command sends a few small requests, where undici's speed does not show.
import http from 'node:http';
import type { RequestOptions as NodeRequestOptions } from 'node:http';

export interface Exchange {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
  /** Ends the exchange, connect included: the request is destroyed with the signal's reason. */
  signal: AbortSignal;
}

export interface Answer {
  status: number;
  /** Names lower-case, as node:http gives them. */
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Keep-alive agents (one per scheme): a listing's second page reuses the first page's connection. */
export class Agents {
  readonly #http = new http.Agent({ keepAlive: true, maxSockets: 16 });
  #https: http.Agent | undefined;

  async forUrl(url: URL): Promise<{ agent: http.Agent; request: typeof http.request }> {
    if (url.protocol !== 'https:') return { agent: this.#http, request: http.request };
    const https = await import('node:https');
    this.#https ??= new https.Agent({ keepAlive: true, maxSockets: 16 });
    return { agent: this.#https, request: https.request };
  }

  /** Closes every socket, idle or busy. */
  destroy(): void {
    this.#http.destroy();
    this.#https?.destroy();
  }
}

/** Sends one request and reads the whole answer as UTF-8 text. */
export async function exchange(agents: Agents, url: string, x: Exchange): Promise<Answer> {
  const target = new URL(url);
  const { agent, request } = await agents.forUrl(target);
  x.signal.throwIfAborted();
  return new Promise<Answer>((resolve, reject) => {
    // An abort destroys the request with an AbortError: report the signal's reason (a timeout) instead.
    const fail = (err: Error) => reject(x.signal.aborted ? (x.signal.reason as Error) : err);
    const options: NodeRequestOptions = { method: x.method, headers: x.headers, agent, signal: x.signal };
    const req = request(target, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(x.body);
  });
}
