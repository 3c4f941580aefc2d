// What every route handler gets: the store, the list engine and the clock.
import type { z } from 'zod';
import { invalidArgument, notFound } from '../api/errors.js';
import { zodViolations } from '../api/schemas.js';
import type { Capability } from '../api/capabilities.js';
import { capability, groups, type Resource } from '../api/registry/index.js';
import { permissionDenied } from './auth/authorize.js';
import type { Authorizer } from './auth/authorize.js';
import type { Principal, Response } from './http.js';
import type { ListEngine, ListOptions } from './store/list.js';
import { newChildUid, timestamp, type WireJson } from './models.js';
import type { Random } from './random.js';
import type { Record_, Store } from './store/store.js';

export interface ServerContext {
  store: Store;
  lists: ListEngine;
  /** Milliseconds since the epoch; injected so tests can move time. */
  clock: () => number;
  /** Role-binding authorization: who may do what where. */
  authz: Authorizer;
  /** Where uids and codes come from: the system's CSPRNG, or a seeded stream (serve --deterministic). */
  random: Random;
}

export function now(ctx: ServerContext): string {
  return timestamp(ctx.clock());
}

/** Validates a request body against a wire schema; every problem becomes a field violation. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, extra: { field: string; description: string }[] = []): z.infer<T> {
  const result = schema.safeParse(body);
  const violations = result.success ? [] : zodViolations(result.error);
  const all = [...extra, ...violations.filter((v) => !extra.some((e) => e.field === v.field))];
  if (all.length) throw invalidArgument(all);
  return result.data as z.infer<T>;
}

/** The stored resource of declaration `d` with this uid; a NOT_FOUND naming it (and `field`) otherwise. */
export function mustGet(ctx: ServerContext, d: Resource, uid: string, field?: string): Record_ {
  const rec = ctx.store.get(uid, d.storeKind);
  if (!rec) throw notFound(d.kind, uid, field);
  return rec;
}

/** 404 when the `d` with this uid does not exist, then 403 when the caller may not use `capability` on it. */
export function authorize(ctx: ServerContext, principal: Principal, capability: Capability, d: Resource, uid: string, field?: string): Record_ {
  const rec = mustGet(ctx, d, uid, field);
  ctx.authz.require(principal, capability, uid);
  return rec;
}

/**
 * A resource the caller may read: in the hierarchy, the declaration's `.list` on it; outside
 * (built-in roles, advisories, of a `global` declaration), `.list` held on any group. The
 * record is the store's shared one: read-only.
 */
export function readable(ctx: ServerContext, principal: Principal, d: Resource, uid: string): Record_ {
  const rec = ctx.store.sharedRecord(uid);
  if (!rec || rec.kind !== d.storeKind) throw notFound(d.kind, uid);
  const cap = capability(d, 'list');
  if (d.visibility === 'global' && !rec.parent) {
    if (!ctx.authz.canAnywhere(principal, cap)) throw permissionDenied(cap, 'any group');
  } else {
    ctx.authz.require(principal, cap, uid);
  }
  return rec;
}

/**
 * A list route's response: the plural key, nextPageToken, totalCount as a string, skipped.
 * Sent as JSON spliced from each item's cached JSON, byte for byte what JSON.stringify makes
 * of the same object.
 */
export function listResponse(ctx: ServerContext, plural: string, query: URLSearchParams, opts: ListOptions, wire: WireJson): Response {
  const page = ctx.lists.list(query, opts);
  const items = wire.encode(page.items);
  const head = `{${JSON.stringify(plural)}:[`;
  const tail = `],"nextPageToken":${JSON.stringify(page.nextPageToken)},"totalCount":"${page.totalCount}","skipped":${page.skipped}}`;
  return {
    bodyJson: { text: head + items.text + tail, bytes: Buffer.byteLength(head) + items.bytes + Buffer.byteLength(tail) },
    // The page's text is new for each request; the parts are cached and live on anyway.
    journalText: joinLater(head, items.parts, tail),
  };
}

function joinLater(head: string, parts: string[], tail: string): () => string {
  return () => head + parts.join(',') + tail;
}

/**
 * A partial update, committed before it resolves: the record is read again, `apply` changes it, and it
 * is written with a new updateTime. An empty change set writes nothing (and keeps updateTime).
 */
export function updateRecord(
  ctx: ServerContext, d: Resource, uid: string, changes: { size: number }, apply: (rec: Record_) => void,
): Promise<Record_> {
  return ctx.store.write(() => {
    const rec = mustGet(ctx, d, uid);
    if (changes.size === 0) return rec;
    apply(rec);
    rec.updateTime = now(ctx);
    ctx.store.update(rec);
    return rec;
  });
}

/** A new child of an existing group: the parent is checked and the uid made in the insert's write. */
export async function insertChild(ctx: ServerContext, rec: Record_, check: () => void = () => {}): Promise<Record_> {
  await ctx.store.write(() => {
    mustGet(ctx, groups, rec.parent!, 'parent');
    check();
    rec.uid = newChildUid(ctx.random, rec.parent!);
    ctx.store.insert(rec);
  });
  return rec;
}
