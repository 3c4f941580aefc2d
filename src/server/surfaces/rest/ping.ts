// GET /ping/v2/ping: the vendor's PingService (chainguard.platform.ping.v2), which needs no
// sign-in (its iam annotation is `disabled`): a public route, so REST and RPC callers alike
// reach it without a token.
import type { Handler } from '../../pipeline/handler.js';

const PING_PATH = '/ping/v2/ping';

export function pingRoutes(): Record<string, Handler> {
  return { [`GET ${PING_PATH}`]: () => Promise.resolve({ body: { response: 'pong' } }) };
}
