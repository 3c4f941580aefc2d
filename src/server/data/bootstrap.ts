// First start on an empty data dir: one organization, the built-in roles, an owner
// identity bound to `owner` on the organization. One write: all or nothing.
import { SERVE } from '../auth/principal.js';
import { commit, type DomainContext } from '../domain/context.js';
import { insertOrganization } from '../domain/groups.js';
import { insertIdentity, moveIssuer } from '../domain/identities.js';
import { builtinRoleUid, claimKey } from '../domain/records.js';
import { bindRole } from '../domain/role-bindings.js';
import { insertBuiltinRoles } from '../domain/roles.js';
import { loadSeed } from './seed-load.js';
import { SeedValidationError, type SeedDocument } from './seed.js';
import type { Record_ } from '../store/store.js';

const DEFAULT_ORGANIZATION = 'local';
const OWNER_SUBJECT = 'owner';

export interface BootstrapOptions {
  /** The issuer named in the owner identity's claimMatch. */
  issuer: string;
  organizationName?: string;
  /**
   * A validated seed, loaded in the same write. Its first organization becomes the
   * organization (it holds the owner identity); the owner is bound `owner` on every seeded
   * organization. Without seeded organizations the default organization is created.
   */
  seed?: SeedDocument;
}

/** Bootstraps an empty store, committed before it resolves; everything is created at one time. */
export function bootstrap(domain: DomainContext, opts: BootstrapOptions): Promise<void> {
  const t = domain.clock();
  const ctx: DomainContext = { ...domain, clock: () => t };
  const { store } = ctx;
  return commit(ctx, SERVE, 'bootstrap', () => {
    insertBuiltinRoles(ctx);
    const seeded = opts.seed ? loadSeed(ctx, opts.seed).organizationUids : [];
    const org: Record_ = seeded.length
      ? store.get(seeded[0]!)!
      : insertOrganization(ctx, { name: opts.organizationName ?? DEFAULT_ORGANIZATION, description: 'Organization created by pctl serve' });
    const claimMatch = { issuer: opts.issuer, subject: OWNER_SUBJECT };
    if (store.findByAltKey('identity', claimKey(claimMatch.issuer, claimMatch.subject)).length) {
      throw new SeedValidationError([{ field: 'claimMatch', description: `issuer ${claimMatch.issuer} with subject ${OWNER_SUBJECT} is reserved for the owner of this serve` }]);
    }
    const owner = insertIdentity(ctx, SERVE, {
      parent: org.uid, name: 'owner', description: 'Owner of this pctl serve (token in DIR/owner.token)', claimMatch,
    });
    for (const orgUid of seeded.length ? seeded : [org.uid]) {
      bindRole(ctx, SERVE, { parent: orgUid, identityUid: owner.uid, roleUid: builtinRoleUid('owner') }, 'caller');
    }
    store.setMeta('organization', org.uid);
    store.setMeta('owner_identity', owner.uid);
    store.setMeta('issuer', opts.issuer);
    store.setMeta('bootstrapped', new Date(t).toISOString());
  });
}

/**
 * In a write: serve is its own token issuer at its base URL, which changes when it restarts
 * on another port; identities that name serve's previous issuer move with it.
 */
export function followIssuer(ctx: DomainContext, url: string): void {
  const previous = ctx.store.getMeta('issuer');
  if (!previous || previous === url) return;
  moveIssuer(ctx, previous, url);
  ctx.store.setMeta('issuer', url);
}
