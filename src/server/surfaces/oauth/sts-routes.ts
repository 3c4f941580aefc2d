// The vendor's sign-in calls over REST, as its grpc-gateway serves them: the token exchange
// (`/sts/exchange`, `/sts/exchange_refresh_token`) with its fields in the query, a form body
// (the SDK's HTTP/1 fallback) or a JSON body, answering proto JSON; and Auth/Validate
// (`GET /auth/v1/ok`). Public routes: each checks its own bearer token.
import { invalidField } from '../../../api/errors.js';
import type { PublicRoutes, Request, Response } from '../../pipeline/handler.js';
import type { Principal } from '../../auth/principal.js';
import type { ExchangeRequest, SecurityTokenService } from '../../auth/sts.js';
import { whoAmI, type WhoAmIOptions } from '../../auth/whoami.js';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const MAX_VALUES = 100;

/** The request's fields: the query, then the body (form or JSON) adding to them. */
async function fieldsOf(req: Request): Promise<Map<string, string[]>> {
  const fields = new Map<string, string[]>();
  const add = (name: string, value: unknown) => {
    // proto JSON names (identityProvider) and the proto's own (identity_provider) are one field.
    const key = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const values = fields.get(key) ?? [];
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v !== 'string') throw invalidField(key, 'must be a string or a list of strings');
      values.push(v);
    }
    if (values.length > MAX_VALUES) throw invalidField(key, `holds more than ${MAX_VALUES} values`);
    fields.set(key, values);
  };
  for (const [k, v] of req.query) add(k, v);
  if (req.method === 'GET') return fields;
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.includes('json')) {
    const body = await req.json();
    // A call over gRPC or Connect: its fields came as the query (the rule has no body).
    if (body === undefined) return fields;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidField('body', 'must be a JSON object');
    for (const [k, v] of Object.entries(body)) add(k, v);
  } else {
    for (const [k, v] of await req.form()) add(k, v);
  }
  return fields;
}

function exchangeRequestOf(fields: Map<string, string[]>): ExchangeRequest {
  const known = new Set(['aud', 'scope', 'identity', 'cap', 'identity_provider', 'scopes']);
  for (const name of fields.keys()) {
    if (!known.has(name)) throw invalidField(name, `is not a field of ExchangeRequest (${[...known].join(', ')})`);
  }
  const one = (name: string) => {
    const values = fields.get(name) ?? [];
    if (values.length > 1) throw invalidField(name, 'must be given once');
    return values[0] ?? '';
  };
  return {
    aud: fields.get('aud') ?? [], identity: one('identity'), cap: fields.get('cap') ?? [], scopes: fields.get('scopes') ?? [],
    scope: one('scope'), identityProvider: one('identity_provider'),
  };
}

export function stsRoutes(sts: SecurityTokenService, authenticate: (h: string | undefined) => Principal | Promise<Principal>, who: WhoAmIOptions): PublicRoutes {
  const exchange = async (req: Request): Promise<Response> => {
    const request = exchangeRequestOf(await fieldsOf(req));
    return { body: await sts.exchange(req.headers.authorization, request), headers: NO_STORE };
  };
  const refresh = async (req: Request): Promise<Response> => {
    const { identity, ...request } = exchangeRequestOf(await fieldsOf(req));
    if (identity) throw invalidField('identity', 'is not a field of ExchangeRefreshTokenRequest (a refresh keeps the identity)');
    return { body: await sts.refresh(req.headers.authorization, request), headers: NO_STORE };
  };
  return {
    'POST /sts/exchange': exchange,
    'GET /sts/exchange': exchange,
    'POST /sts/exchange_refresh_token': refresh,
    // serve's own: revoke a sign-in by its refresh token (pctl auth logout).
    'POST /sts/revoke_refresh_token': (req) => (sts.revoke(req.headers.authorization), { body: {}, headers: NO_STORE }),
    'GET /auth/v1/ok': async (req) => ({ body: whoAmI(who, await authenticate(req.headers.authorization)), headers: NO_STORE }),
  };
}
