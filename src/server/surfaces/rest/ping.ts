// GET /ping/v2/ping (and v2beta1's): the vendor's PingService (chainguard.platform.ping.v2), which needs no
// sign-in (its iam annotation is `disabled`): a public route, so REST and RPC callers alike
// reach it without a token.
import type { Handler } from '../../pipeline/handler.js';

const pong: Handler = () => Promise.resolve({ body: { response: 'pong' } });

export function pingRoutes(): Record<string, Handler> {
  return { 'GET /ping/v2/ping': pong, 'GET /ping/v2beta1/ping': pong };
}
