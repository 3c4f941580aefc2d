// Which tokens an identity accepts: its claimMatch, in the published ClaimMatch's JSON names.
// Each of issuer, subject and audience is matched exactly or by a pattern (anchored, RE2's
// syntax: what the vendor's side compiles; checked at create by schemas.ts patternProblem),
// and every named claim likewise.
import type { VerifiedToken } from './tokens.js';

export interface ClaimMatch {
  issuer?: string;
  issuerPattern?: string;
  subject?: string;
  subjectPattern?: string;
  audience?: string;
  audiencePattern?: string;
  claims?: Record<string, string>;
  claimPatterns?: Record<string, string>;
}

const compiled = new Map<string, RegExp>();

/** The pattern matched against the whole value, as the vendor anchors it. */
function anchored(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    re = new RegExp(`^(?:${pattern})$`);
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

function matches(value: string, exact: string | undefined, pattern: string | undefined): boolean {
  if (exact !== undefined) return value === exact;
  if (pattern !== undefined) return anchored(pattern).test(value);
  return true;
}

/** Whether the identity names its issuer and subject exactly (the ones found by index; exact beats pattern). */
export function isExact(m: ClaimMatch): boolean {
  return m.issuer !== undefined && m.subject !== undefined;
}

/** Whether tokens of `issuer` may be for this identity (the issuers whose keys serve may fetch). */
export function acceptsIssuer(m: ClaimMatch, issuer: string): boolean {
  return (m.issuer !== undefined || m.issuerPattern !== undefined) && matches(issuer, m.issuer, m.issuerPattern);
}

/**
 * Why the identity does not accept the token (one sentence naming the claim), or undefined
 * when it does. `ownAudiences`: what the audience must be when the identity names none (the
 * vendor's default: its own issuer; serve's: any audience it answers for).
 */
export function claimMismatch(m: ClaimMatch, token: VerifiedToken, ownAudiences: ReadonlySet<string>): string | undefined {
  if (!acceptsIssuer(m, token.iss)) return `its issuer ${JSON.stringify(token.iss)} is not the identity's`;
  if (!matches(token.sub, m.subject, m.subjectPattern)) return `its subject ${JSON.stringify(token.sub)} does not match the identity's ${m.subject !== undefined ? 'subject' : 'subjectPattern'}`;
  if (m.audience !== undefined || m.audiencePattern !== undefined) {
    if (!token.aud.some((a) => matches(a, m.audience, m.audiencePattern))) {
      return `its audience ${JSON.stringify(token.aud.join(','))} does not match the identity's ${m.audience !== undefined ? 'audience' : 'audiencePattern'}`;
    }
  } else if (!token.aud.some((a) => ownAudiences.has(a))) {
    return `its audience ${JSON.stringify(token.aud.join(','))} is none this server answers for, and the identity names no audience of its own`;
  }
  for (const [name, want] of Object.entries(m.claims ?? {})) {
    if (token.claims[name] !== want) return `its claim ${name} is not ${JSON.stringify(want)}`;
  }
  for (const [name, pattern] of Object.entries(m.claimPatterns ?? {})) {
    const value = token.claims[name];
    if (value === undefined || !anchored(pattern).test(value)) return `its claim ${name} does not match the pattern ${JSON.stringify(pattern)}`;
  }
  return undefined;
}

