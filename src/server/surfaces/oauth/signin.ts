// What both grants share: the owner token proof (whoever holds it is the administrator), the
// browser session that remembers that proof, the choice among this issuer's identities, and
// the tokens handed out for the identity chosen.
import type { Request, Response } from '../../pipeline/handler.js';
import type { Principal } from '../../auth/principal.js';
import { mintToken, type SigningKey } from '../../auth/tokens.js';
import type { Store, Record_ } from '../../store/store.js';
import type { Random } from '../../base/random.js';
import { cookie, DEFAULT_TOKEN_TTL_S, NO_STORE, oauthError, randomToken } from './protocol.js';
import { pickPage, type PickTarget } from './pages.js';
import { MAX_SESSIONS, SESSION_TTL_MS, signInState, type SignInState } from './state.js';

const MAX_IDENTITIES_LISTED = 500;
const SESSION_COOKIE = 'pctl_signin';

export interface OAuthOptions {
  issuer: () => string;
  key: SigningKey;
  store: Store;
  clock: () => number;
  /** Where sessions, codes and CSRF tokens come from (ServeOptions.random). */
  random: Random;
  /** The server's bearer check (verifies the token, finds its identity). */
  authenticate: (authorization: string | undefined) => Promise<Principal>;
  /** Lifetime of the tokens handed out (default 8h). */
  tokenTtlSeconds?: number;
}

export interface SignIn extends SignInState {
  opts: OAuthOptions;
  hasSession: (req: Request) => boolean;
  /** The identities that name this server as their issuer (the ones one may sign in as). */
  ownIdentities: () => Record_[];
  pickPage: (csrf: string, target: PickTarget, notice?: string, status?: number) => Response;
  /** Whether `supplied` is a valid token of the owner identity. */
  isOwnerToken: (supplied: string | null) => Promise<boolean>;
  /** The page after a proven owner token, with a session cookie so that this browser need not prove it again for a while. */
  withSession: (page: Response) => Response;
  /** The token response for an identity that signed in: an access token and an ID token. */
  tokensFor: (identityUid: string) => Promise<Response>;
}

export function signIn(opts: OAuthOptions): SignIn {
  const state = signInState(opts.clock);
  const { sessions, prune } = state;
  const ttl = opts.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_S;

  const hasSession = (req: Request) => {
    const id = cookie(req, SESSION_COOKIE);
    const until = id ? sessions.get(id) : undefined;
    return until !== undefined && until > opts.clock();
  };

  const ownIdentities = (): Record_[] => opts.store.findByAltKeyFirstPart('identity', opts.issuer(), MAX_IDENTITIES_LISTED);

  const isOwnerToken = async (supplied: string | null): Promise<boolean> => {
    const token = (supplied ?? '').trim();
    if (!token) return false;
    try {
      const principal = await opts.authenticate(`Bearer ${token}`);
      return principal.identityUid === opts.store.getMeta('owner_identity');
    } catch {
      return false;
    }
  };

  const withSession = (page: Response): Response => {
    prune();
    if (sessions.size >= MAX_SESSIONS) return page;
    const session = randomToken(opts.random);
    sessions.set(session, opts.clock() + SESSION_TTL_MS);
    const cookieHeader = `${SESSION_COOKIE}=${session}; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}`;
    return { ...page, headers: { ...page.headers, 'set-cookie': cookieHeader } };
  };

  const tokensFor = async (identityUid: string): Promise<Response> => {
    const identity = opts.store.get(identityUid, 'identity');
    const issuer = opts.issuer();
    const claim = identity?.data.claimMatch;
    if (!identity || claim?.issuer !== issuer || !claim.subject) {
      return oauthError('invalid_grant', 'the identity signed in as no longer exists or no longer names this issuer');
    }
    const now = opts.clock();
    const [accessToken, idToken] = await Promise.all([
      mintToken(opts.key, { issuer, subject: claim.subject, ttlSeconds: ttl, now }),
      mintToken(opts.key, { issuer, subject: claim.subject, ttlSeconds: ttl, now, extraClaims: { name: identity.name, identity_uid: identity.uid } }),
    ]);
    return {
      body: { access_token: accessToken, id_token: idToken, token_type: 'Bearer', expires_in: ttl },
      headers: NO_STORE,
    };
  };

  return {
    ...state,
    opts,
    hasSession,
    ownIdentities,
    pickPage: (csrf, target, notice, status) => pickPage(csrf, target, ownIdentities(), opts.store.getMeta('owner_identity'), notice, status),
    isOwnerToken,
    withSession,
    tokensFor,
  };
}
