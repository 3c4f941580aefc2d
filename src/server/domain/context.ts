// What every domain operation works with, and the checks they all share: the record must
// exist (404), the caller must hold the capability on it (403), and a write commits through
// the store with who made it (the change feed reports them).
import { notFound } from '../../api/errors.js';
import type { Capability } from '../../api/capabilities.js';
import { capabilities, groups, type Resource } from '../../api/registry/index.js';
import { Authorizer } from '../auth/authorize.js';
import { isServe, type Principal } from '../auth/principal.js';
import { ListEngine, type ListEngineOptions } from '../store/list.js';
import type { Random } from '../base/random.js';
import type { Kind, Record_, Store } from '../store/store.js';
import { isKind } from './kinds/build.js';
import type { Changes } from './patch.js';
import { newChildUid, timestamp } from './records.js';

export interface DomainContext {
  store: Store;
  /** The one list engine (pagination, ordering, filters, the caller's scope). */
  lists: ListEngine;
  /** Role-binding authorization: who may do what where. */
  authz: Authorizer;
  /** Milliseconds since the epoch; injected so tests can move time. */
  clock: () => number;
  /** Where uids and codes come from: the system's CSPRNG, or a seeded stream (serve --deterministic). */
  random: Random;
  /** Webhook sinks may point at private and link-local addresses (serve --allow-private-sinks). */
  allowPrivateSinks: boolean;
}

/** The context of a store: its authorizer and list engine made here, once per store. */
export function domainContext(store: Store, clock: () => number, random: Random, lists: ListEngineOptions = {}, allowPrivateSinks = false): DomainContext {
  return { store, lists: new ListEngine(store, clock, random, lists), authz: new Authorizer(store), clock, random, allowPrivateSinks };
}

/**
 * An operation's input that the caller may hand over as a function: it is called only once
 * the caller is authorized, so that a caller without access learns nothing from how its input
 * is judged (an update's body is read after the 404 and the 403).
 */
export type Deferred<T> = T | (() => T | Promise<T>);

export async function resolve<T>(input: Deferred<T>): Promise<T> {
  return typeof input === 'function' ? (input as () => T | Promise<T>)() : input;
}

export function now(ctx: DomainContext): string {
  return timestamp(ctx.clock());
}

/**
 * Runs `fn` as one write (committed before the promise settles), on behalf of `principal`
 * by `operation`: the change feed reports its changes with them.
 */
export function commit<T>(ctx: DomainContext, principal: Principal, operation: string, fn: () => T): Promise<T> {
  if (isServe(principal)) return ctx.store.write(fn, { actor: null, time: now(ctx), operation });
  return ctx.store.write(fn, { actor: principal.identityUid, time: now(ctx), operation, ...(principal.claims ? { claims: principal.claims } : {}) });
}

/** The stored resource of declaration `d` with this uid; a NOT_FOUND naming it (and `field`) otherwise. */
export function mustGet<K extends Kind>(ctx: DomainContext, d: Resource & { storeKind: K }, uid: string, field?: string): Record_<K> {
  const rec = ctx.store.get(uid, d.storeKind);
  if (!rec) throw notFound(d.kind, uid, field);
  return rec;
}

/** 404 when the `d` with this uid does not exist, then 403 unless the caller holds `cap` on it (every one of a rule's capabilities). */
export function authorize<K extends Kind>(ctx: DomainContext, principal: Principal, cap: Capability | readonly Capability[], d: Resource & { storeKind: K }, uid: string, field?: string): Record_<K> {
  const rec = mustGet(ctx, d, uid, field);
  ctx.authz.require(principal, cap, uid);
  return rec;
}

/**
 * A resource the caller may read: in the hierarchy, its Get's capabilities on it; outside
 * (built-in roles, advisories, of a `global` declaration), held on any group. The
 * record is the store's shared one: read-only.
 */
export function readable<K extends Kind>(ctx: DomainContext, principal: Principal, d: Resource & { storeKind: K }, uid: string): Record_<K> {
  const rec = ctx.store.sharedRecord(uid);
  if (!rec || !isKind(rec, d.storeKind)) throw notFound(d.kind, uid);
  const caps = capabilities(d, 'get');
  if (d.visibility === 'global' && !rec.parent) ctx.authz.requireAnywhere(principal, caps);
  else ctx.authz.require(principal, caps, uid);
  return rec;
}

/**
 * In a write: a partial update of the record read again now; `apply` changes it, and it is
 * written with a new updateTime. An empty change set writes nothing (and keeps updateTime).
 */
export function patchRecord<K extends Kind>(ctx: DomainContext, d: Resource & { storeKind: K }, uid: string, changes: Changes, apply: (rec: Record_<K>) => void): Record_<K> {
  const rec = mustGet(ctx, d, uid);
  if (changes.size === 0) return rec;
  apply(rec);
  rec.updateTime = now(ctx);
  ctx.store.update(rec);
  return rec;
}

/** In a write: a new child of an existing group; the parent is checked and the uid made here. */
export function insertChild<R extends Record_>(ctx: DomainContext, rec: R, check: () => void = () => {}): R {
  mustGet(ctx, groups, rec.parent!, 'parent');
  check();
  rec.uid = newChildUid(ctx.random, rec.parent!);
  ctx.store.insert(rec);
  return rec;
}
