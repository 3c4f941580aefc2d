// What every domain test starts from: a bootstrapped store (an organization, the built-in
// roles, the owner bound `owner` on it), the domain on top of it, a clock the test moves and
// a seeded source of uids. No HTTP, no server: each test calls an operation with a principal.
// The store lives in a temp dir (in memory where /dev/shm is), so that a commit costs little.
import type { ExecutionContext } from 'ava';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../src/api/errors.js';
import type { Principal } from '../../src/server/auth/principal.js';
import { SERVE } from '../../src/server/auth/principal.js';
import { bootstrap } from '../../src/server/data/bootstrap.js';
import { domainContext } from '../../src/server/domain/context.js';
import { createDomain, type Domain } from '../../src/server/domain/index.js';
import { builtinRoleUid } from '../../src/server/domain/records.js';
import { bindRole } from '../../src/server/domain/role-bindings.js';
import { insertIdentity } from '../../src/server/domain/identities.js';
import { insertGroup } from '../../src/server/domain/groups.js';
import { commit } from '../../src/server/domain/context.js';
import { SeededRandom } from '../../src/server/base/random.js';
import { Store, type Record_ } from '../../src/server/store/store.js';
import type { ListQuery } from '../../src/server/store/list-query.js';
import type { Changes } from '../../src/server/domain/patch.js';

export const ISSUER = 'https://issuer.test';

export interface World {
  domain: Domain;
  store: Store;
  /** The organization bootstrap made. */
  org: string;
  /** Its owner: every capability on the organization. */
  owner: Principal;
  /** Moves the clock forward. */
  advance(ms: number): void;
  /** A group below `parent`, made by serve. */
  group(parent: string, name: string): Promise<string>;
  /** A new identity (in the organization) bound to each built-in or custom role on its group, made by serve; its principal. */
  person(name: string, bindings: { role: string; on: string }[], extra?: Partial<Principal>): Promise<Principal>;
  /** The number of changes committed since the world was made: a refusal leaves it as it was. */
  committed(): number;
  /** The uids of a list's records, as `principal` sees them (the whole list, one page). */
  listed(resource: 'groups' | 'identities' | 'roles' | 'roleBindings' | 'repos', principal: Principal, query?: ListQuery): Promise<string[]>;
}

/** A built-in role's uid by name, or a custom role's uid as is. */
const roleUid = (role: string) => (['owner', 'editor', 'viewer'].includes(role) ? builtinRoleUid(role) : role);

export async function world(t: ExecutionContext, opts: { allowPrivateSinks?: boolean } = {}): Promise<World> {
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pctl-domain-'));
  const store = new Store(dir);
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let now = Date.parse('2026-03-01T12:00:00.000Z');
  const ctx = domainContext(store, () => now, new SeededRandom(43), {}, opts.allowPrivateSinks === true);
  await bootstrap(ctx, { issuer: ISSUER });
  const domain = createDomain(ctx);
  let changes = 0;
  store.changes.subscribe((c) => (changes += c.length));
  const org = store.getMeta('organization')!;
  let people = 0;
  return {
    domain, store, org,
    owner: { identityUid: store.getMeta('owner_identity')! },
    advance: (ms) => (now += ms),
    group: async (parent, name) => (await commit(ctx, SERVE, 'test', () => insertGroup(ctx, { parent, name }))).uid,
    async person(name, bindings, extra = {}) {
      const identity = await commit(ctx, SERVE, 'test', () => {
        const rec = insertIdentity(ctx, SERVE, { parent: org, name, claimMatch: { issuer: ISSUER, subject: `${name}-${++people}` } });
        for (const b of bindings) bindRole(ctx, SERVE, { parent: b.on, identityUid: rec.uid, roleUid: roleUid(b.role) }, 'caller');
        return rec;
      });
      return { identityUid: identity.uid, ...extra };
    },
    committed: () => changes,
    async listed(resource, principal, query = {}) {
      const page = await domain[resource].list(principal, { pageSize: 1000, ...query });
      return page.items.map((r: Record_) => r.uid);
    },
  };
}

/** A partial update's changes, by dotted path. */
export const changes = (fields: Record<string, unknown>): Changes => new Map(Object.entries(fields));

/** What a refused call tells its caller: the code, the reason, the fields named (in order), the precondition types. */
export async function refusal(t: ExecutionContext, call: Promise<unknown>): Promise<{ code: number; reason: string; fields: string[]; preconditions: string[]; message: string }> {
  const err = await t.throwsAsync(call);
  if (!(err instanceof ApiError)) throw new Error(`not an ApiError: ${String(err)}`);
  return {
    code: err.code, reason: err.reason, message: err.message,
    fields: err.fieldViolations.map((v) => v.field), preconditions: err.preconditionViolations.map((v) => v.type),
  };
}
