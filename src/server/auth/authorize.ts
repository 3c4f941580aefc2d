// What a caller may do: a binding of identity I to role R on group G grants R's
// capabilities on G and everything below it (every resource whose uid starts with G/).
import { ApiError, Code } from '../../api/errors.js';
import { CAPABILITIES, type Capability } from '../../api/capabilities.js';
import { within, type ListScope } from '../store/list.js';
import type { Store } from '../store/store.js';
import { isServe, type Narrowing, type Principal } from './principal.js';

export { within };

/** What grants are made of: deleting a group removes its bindings, a write of their kind too. */
const GRANT_KINDS = ['roleBinding', 'role'] as const;

/** Capabilities by the group they were granted on. */
type Grants = Map<string, Set<string>>;

/** 403 naming what the caller lacks (each capability of `capability` it lacks, when a rule needs several). */
function permissionDenied(capability: string | readonly string[], target: string): ApiError {
  const named = typeof capability === 'string' ? capability : capability.join(', ');
  const verb = typeof capability === 'string' || capability.length === 1 ? 'is' : 'are';
  return new ApiError(Code.PERMISSION_DENIED, `Permission denied: ${named} ${verb} required on ${target}`, {
    reason: 'PERMISSION_DENIED',
    metadata: { capability: typeof capability === 'string' ? capability : capability.join(','), resource: target },
  });
}

export class Authorizer {
  /** Per identity: its grants, and the list scopes made from them (both good until a grant kind is written). */
  private cache = new Map<string, { version: string; grants: Grants; scopes: Map<string, ListScope> }>();

  constructor(private readonly store: Store) {}

  /** The caller's grants, recomputed after a write of a binding or a role (they change rarely, reads often). */
  private grants(principal: Principal): Grants {
    return this.entry(principal).grants;
  }

  private entry(principal: Principal): { grants: Grants; scopes: Map<string, ListScope> } {
    const { identityUid, narrowed } = principal;
    const cacheKey = narrowed ? `${identityUid}\n${narrowed.key}` : identityUid;
    const version = this.store.versionOf(GRANT_KINDS);
    const hit = this.cache.get(cacheKey);
    if (hit && hit.version === version) return hit;
    const grants: Grants = new Map();
    for (const binding of this.store.findByAltKeyFirstPart('roleBinding', identityUid)) {
      const role = this.store.get(binding.data.roleUid, 'role');
      const caps = grants.get(binding.parent!) ?? new Set<string>();
      for (const c of role?.data.capabilities ?? []) caps.add(c);
      grants.set(binding.parent!, caps);
    }
    if (this.cache.size > 1000) this.cache.clear();
    const entry = { version, grants: narrowed ? narrow(grants, narrowed) : grants, scopes: new Map<string, ListScope>() };
    this.cache.set(cacheKey, entry);
    return entry;
  }

  /** Every capability the caller holds on a uid (through bindings on it or its ancestors). */
  capabilitiesOn(principal: Principal, uid: string): Set<string> {
    if (isServe(principal)) return new Set(CAPABILITIES);
    const out = new Set<string>();
    for (const [group, caps] of this.grants(principal)) {
      if (within(uid, group)) for (const c of caps) out.add(c);
    }
    return out;
  }

  can(principal: Principal, capability: Capability, uid: string): boolean {
    if (isServe(principal)) return true;
    for (const [group, caps] of this.grants(principal)) {
      if (caps.has(capability) && within(uid, group)) return true;
    }
    return false;
  }

  /** Whether the caller holds the capability anywhere (for resources outside the hierarchy). */
  canAnywhere(principal: Principal, capability: Capability): boolean {
    if (isServe(principal)) return true;
    for (const caps of this.grants(principal).values()) if (caps.has(capability)) return true;
    return false;
  }

  /** 403 unless the caller holds the capability on `uid`, or every one of a rule's capabilities. */
  require(principal: Principal, capability: Capability | readonly Capability[], uid: string): void {
    const missing = (typeof capability === 'string' ? [capability] : capability).filter((c) => !this.can(principal, c, uid));
    if (missing.length) throw permissionDenied(missing, uid);
  }

  /** 403 unless the caller holds every one of `capabilities` somewhere (for resources outside the hierarchy). */
  requireAnywhere(principal: Principal, capabilities: readonly Capability[]): void {
    const missing = capabilities.filter((c) => !this.canAnywhere(principal, c));
    if (missing.length) throw permissionDenied(missing, 'any group');
  }

  /**
   * What a list may show the caller: the groups granting `capability` (each with everything
   * below it), and with `includeUnparented` the rows outside the hierarchy (built-in roles,
   * advisories) when the capability is held anywhere. The list engine reads each subtree
   * through its own uid range.
   */
  scope(principal: Principal, capability: Capability, includeUnparented = false): ListScope {
    const { grants, scopes } = this.entry(principal);
    const key = `${capability}:${includeUnparented ? 1 : 0}`;
    let scope = scopes.get(key);
    if (scope) return scope;
    const granting = [...grants]
      .filter(([, caps]) => caps.has(capability))
      .map(([group]) => group)
      .sort();
    // A grant below another grant adds nothing.
    const roots = granting.filter((g) => !granting.some((other) => other !== g && within(g, other)));
    const unparented = includeUnparented && roots.length > 0;
    scope = { roots, unparented, key: `${capability}:${roots.join(',')}:${unparented ? 1 : 0}` };
    scopes.set(key, scope);
    return scope;
  }
}

/**
 * Grants as an exchanged token narrows them: only its capabilities, and only where a granting
 * group and one of its scopes overlap (the deeper of the two, as subtrees nest or are apart).
 */
function narrow(grants: Grants, { caps, scopes }: Narrowing): Grants {
  const out: Grants = new Map();
  const add = (group: string, held: Set<string>) => {
    const kept = caps ? new Set([...held].filter((c) => caps.has(c))) : held;
    if (!kept.size) return;
    const into = out.get(group) ?? new Set<string>();
    for (const c of kept) into.add(c);
    out.set(group, into);
  };
  for (const [group, held] of grants) {
    if (!scopes) add(group, held);
    else for (const scope of scopes) if (within(group, scope)) add(group, held); else if (within(scope, group)) add(scope, held);
  }
  return out;
}
