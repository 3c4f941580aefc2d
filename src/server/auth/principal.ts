// Who acts: the identity a bearer token belongs to, or serve itself.

export interface Principal {
  /** The identity the bearer token belongs to ('' for serve itself). */
  identityUid: string;
  /** The token's email claim, when it has one. */
  email?: string;
  /** Every validated claim of the token, as text; change events carry them (actor.act). */
  claims?: Readonly<Record<string, string>>;
  /**
   * What an exchanged token was narrowed to (`cap`, `scopes` of the token exchange): only these
   * capabilities, only on these groups and below. Absent: everything the identity's bindings grant.
   */
  narrowed?: Narrowing;
}

export interface Narrowing {
  caps?: ReadonlySet<string>;
  scopes?: readonly string[];
  /** The cache key of this narrowing. */
  key: string;
}

/**
 * serve itself, for the writes no caller makes: bootstrap, seeds and demo data. It holds
 * every capability everywhere (the Authorizer knows it by identity: no token can become it),
 * and its writes carry no actor in the change feed.
 */
export const SERVE: Principal = Object.freeze({ identityUid: '' });

export function isServe(principal: Principal): boolean {
  return principal === SERVE;
}
