// A webhook receiver for the events tests, built as a user would build one: the CloudEvents SDK
// (`cloudevents`, from test/tools) reads each POST, and jose checks its token against serve's published JWKS
// (OIDC discovery), then the checks the vendor's SDK receiver makes: audience `customer`,
// `sub` = `webhook:<group>`, `webhook.digest` = the body's SHA-256. Tests wait on next(), never sleep.
import http from 'node:http';
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { requireTestTool } from './test-tools.js';

/** The attributes of a CloudEvent the tests read (the SDK's class has these and more). */
interface CloudEvent<T> {
  specversion: string;
  id: string;
  type: string;
  source: string;
  subject?: string;
  time?: string;
  datacontenttype?: string;
  data?: T;
  [extension: string]: unknown;
}
/** The SDK's HTTP binding: a request's headers and body in, a validated CloudEvent out. */
const { HTTP } = requireTestTool('cloudevents') as { HTTP: { toEvent(message: { headers: http.IncomingHttpHeaders; body: string }): unknown } };

interface Received {
  event: CloudEvent<Record<string, unknown>>;
  headers: http.IncomingHttpHeaders;
  /** The verified token's claims; undefined when the token failed a check (see `problem`). */
  claims?: JWTPayload;
  problem?: string;
  /** The status this receiver answered. */
  status: number;
}

export interface Receiver {
  url: string;
  /** Every delivery in arrival order. */
  received: Received[];
  /** The next delivery not yet taken by next() (waits for it). */
  next(): Promise<Received>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** serve's issuer URL: its /.well-known/openid-configuration names the JWKS. */
  issuer: string;
  /** The group the subscription belongs to: the token's sub must be `webhook:<group>`. */
  group: string;
  /** The status to answer the n-th POST with (0-based); default 200. `'hang'` never answers. */
  answer?: (n: number) => number | 'hang';
  path?: string;
}

export async function startReceiver(opts: ReceiverOptions): Promise<Receiver> {
  const discovery = (await (await fetch(`${opts.issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string; issuer: string };
  const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
  const received: Received[] = [];
  const waiting: ((r: Received) => void)[] = [];
  let taken = 0;
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const n = received.length;
        const answer = opts.answer?.(n) ?? 200;
        const entry: Received = { event: HTTP.toEvent({ headers: req.headers, body: body.toString('utf8') }) as CloudEvent<Record<string, unknown>>, headers: req.headers, status: answer === 'hang' ? 0 : answer };
        try {
          entry.claims = await verify(req.headers.authorization, body);
        } catch (err) {
          entry.problem = (err as Error).message;
        }
        received.push(entry);
        const w = waiting.shift();
        if (w) {
          taken++;
          w(entry);
        }
        if (answer === 'hang') hanging.add(res);
        else res.writeHead(answer).end();
      })();
    });
  });

  const verify = async (authorization: string | undefined, body: Buffer): Promise<JWTPayload> => {
    if (!authorization?.startsWith('Bearer ')) throw new Error('no bearer token');
    const { payload } = await jwtVerify(authorization.slice(7), jwks, { issuer: discovery.issuer, audience: 'customer' });
    if (payload.sub !== `webhook:${opts.group}`) throw new Error(`sub ${payload.sub} is not webhook:${opts.group}`);
    const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    if (payload['webhook.digest'] !== digest) throw new Error('webhook.digest does not match the body');
    return payload;
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as import('node:net').AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${opts.path ?? '/events'}`,
    received,
    next: () => (taken < received.length ? Promise.resolve(received[taken++]!) : new Promise((resolve) => waiting.push(resolve))),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
