// The registry: repos nest under a group (`<group uid>/<16 hex>`), tags under their repo
// (`<repo uid>/<16 hex>`). Both are created and deleted through the API (the vendor's
// ReposService and TagsService, v1's Registry) and come from seeds. A repo's name is its
// address in the group's registry, unique among its siblings; a tag's name is unique in its
// repo. The vendor's catalogue fields of a repo (tier, bundles, aliases, active tags, sync
// and overlay configuration, README) are stored as given and returned: serve builds nothing.
import { alreadyExists, invalidArgument, type FieldViolation } from '../../api/errors.js';
import { capabilities, capability, groups as G, repos as RP, tags as TG } from '../../api/registry/index.js';
import { descriptionProblem, repoNameProblem, UPDATE_RULES } from '../../api/schemas.js';
import type { Principal } from '../auth/principal.js';
import type { Record_ } from '../store/store.js';
import { authorize, commit, mustGet, now, resolve, type Deferred, type DomainContext } from './context.js';
import { ruledChanges, type Changes } from './patch.js';
import { readOperations, type ListInput } from './reads.js';
import { records } from './kinds/index.js';
import { CATALOG_TIERS, type RepoData, type RepoExtras } from './kinds/repo.js';
import type { TagData } from './kinds/tag.js';
import { newChildUid } from './records.js';

/** The repo fields serve stores as given (proto3 JSON names and values of the vendor's Repo), besides name and description. */
export const REPO_EXTRAS = ['catalogTier', 'bundles', 'aliases', 'activeTags', 'syncConfig', 'customOverlay'] as const;
type RepoExtra = (typeof REPO_EXTRAS)[number] & keyof RepoExtras;

export interface NewRepo extends Partial<Record<RepoExtra, unknown>> {
  parent: string; name: string; description?: string | undefined; readme?: string | undefined;
  /** The published JSON name of syncConfig, as a REST create body carries it. */
  sync_config?: unknown;
}
export interface NewTag { parent: string; name: string; digest?: string | undefined; deprecated?: boolean | undefined; bundles?: readonly string[] | undefined; updateTime?: string | undefined }

const LABEL_MAX = 255;
const LABELS_MAX = 100;
/** A README: Markdown, bounded as a request body is (1 MiB) anyway; this keeps a record small. */
const README_MAX = 64 * 1024;
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

function labelsProblem(v: unknown): string | undefined {
  if (!Array.isArray(v)) return 'must be a list of strings';
  if (v.length > LABELS_MAX) return `must have at most ${LABELS_MAX} entries`;
  const bad = (v as unknown[]).some((x) => typeof x !== 'string' || x === '' || x.length > LABEL_MAX || CONTROL_RE.test(x));
  return !bad ? undefined : `entries must be non-empty strings of at most ${LABEL_MAX} characters without control characters`;
}

const isObject = (v: unknown) => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** The problem of each catalogue field given (undefined: cleared, always fine). */
const EXTRA_RULES: Record<RepoExtra, (v: unknown) => string | undefined> = {
  catalogTier: (v) => (typeof v === 'string' && (CATALOG_TIERS as readonly string[]).includes(v) ? undefined : `must be one of ${CATALOG_TIERS.join(', ')}`),
  bundles: labelsProblem,
  aliases: labelsProblem,
  activeTags: labelsProblem,
  syncConfig: (v) => (isObject(v) && typeof (v as { source?: unknown }).source === 'string' && (v as { source: string }).source !== '' ? undefined : 'must be an object with a source'),
  customOverlay: (v) => (isObject(v) ? undefined : 'must be an object'),
};

/** The catalogue fields to store (a default value clears one: proto3 cannot tell them apart), every violation at once. */
function extrasOf(input: Partial<Record<RepoExtra, unknown>>, prefix = ''): { set: RepoExtras; cleared: RepoExtra[] } {
  const set: Partial<Record<RepoExtra, unknown>> = {};
  const cleared: RepoExtra[] = [];
  const violations: FieldViolation[] = [];
  for (const field of REPO_EXTRAS) {
    if (!(field in input)) continue;
    const v = input[field];
    if (v === undefined || v === null || v === 'CATALOG_TIER_UNSPECIFIED' || (Array.isArray(v) && v.length === 0)) {
      cleared.push(field);
      continue;
    }
    const problem = EXTRA_RULES[field](v);
    if (problem) violations.push({ field: `${prefix}${field}`, description: problem });
    else set[field] = field === 'syncConfig' ? syncConfigStored(v as { source: string }) : v;
  }
  if (violations.length) throw invalidArgument(violations);
  // Each value held to its field's rule above.
  return { set: set as RepoExtras, cleared };
}

/** What a caller may set of a sync configuration; the rest (unique tags, expiry, overlay, grace) is the vendor's to decide. */
function syncConfigStored(v: { source: string } & Record<string, unknown>): RepoExtras['syncConfig'] {
  const out: RepoExtras['syncConfig'] = { source: v.source };
  for (const k of ['google', 'amazon', 'azure'] as const) if (typeof v[k] === 'string' && v[k] !== '') out[k] = v[k];
  return out;
}

/** A changed string field's new value ('' when cleared; a non-string fails its rule as ''). */
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function readmeProblem(v: string): string | undefined {
  return v.length > README_MAX ? `must be at most ${README_MAX} characters` : undefined;
}

function checked(field: string, value: string | undefined, rule: (v: string) => string | undefined): void {
  const problem = value === undefined ? undefined : rule(value);
  if (problem) throw invalidArgument([{ field, description: problem }]);
}

export function repoOperations(ctx: DomainContext) {
  const { store, authz } = ctx;
  return {
    ...readOperations(ctx, RP),

    async create(principal: Principal, given: NewRepo): Promise<Record_<'repo'>> {
      const { sync_config: published, ...rest } = given;
      const input: NewRepo = published === undefined ? rest : { ...rest, syncConfig: published };
      authorize(ctx, principal, capabilities(RP, 'create'), G, input.parent, 'parent');
      checked('name', input.name, repoNameProblem);
      checked('description', input.description, descriptionProblem);
      checked('readme', input.readme, readmeProblem);
      extrasOf(input);
      return commit(ctx, principal, 'repos.create', () => insertRepo(ctx, input));
    },

    /** Deletes the repo and its tags. */
    async delete(principal: Principal, uid: string): Promise<void> {
      authorize(ctx, principal, capabilities(RP, 'delete'), RP, uid);
      await commit(ctx, principal, 'repos.delete', () => {
        const rec = mustGet(ctx, RP, uid);
        for (const tag of store.children(rec.uid, TG.storeKind)) store.remove(tag.uid);
        store.remove(rec.uid);
      });
    },

    /** The repo's README (the vendor's RepoReadme; v1's Repo.readme): what was stored, '' when none. */
    async readme(principal: Principal, uid: string): Promise<{ repo: Record_<'repo'>; content: string }> {
      const repo = await this.get(principal, uid);
      return { repo, content: readmeOf(repo) };
    },

    async update(principal: Principal, uid: string, changes: Deferred<Changes>): Promise<Record_<'repo'>> {
      return patchRepo(principal, uid, changes, capabilities(RP, 'update'), 'repos.update');
    },

    /**
     * The published UpdateRepoReadme: its rule needs repo.update and repo.internal.admin, which
     * the vendor marks internal only (no customer's role holds it): serve's own token may.
     */
    async updateReadme(principal: Principal, uid: string, content: string): Promise<Record_<'repo'>> {
      return patchRepo(principal, uid, new Map([['readme', content]]), capabilities(RP, 'UpdateRepoReadme'), 'repos.UpdateRepoReadme');
    },
  };

  /** A repo's partial update under the rule `caps`, committed as `operation` (its event type is that method's). */
  async function patchRepo(principal: Principal, uid: string, changes: Deferred<Changes>, caps: readonly string[], operation: string): Promise<Record_<'repo'>> {
    authorize(ctx, principal, caps, RP, uid);
    const resolved = await resolve(changes);
    const { name, description } = ruledChanges(resolved, UPDATE_RULES.repo);
    const readme = resolved.has('readme') ? text(resolved.get('readme')) : undefined;
    checked('readme', readme, readmeProblem);
    const extras = extrasOf(Object.fromEntries(REPO_EXTRAS.filter((f) => resolved.has(f)).map((f) => [f, resolved.get(f)])));
    return commit(ctx, principal, operation, () => {
      const rec = mustGet(ctx, RP, uid);
      let changed = false;
      if (name !== undefined && name !== rec.name) {
        const clash = store.siblingNamed(rec.parent!, RP.storeKind, name, rec.uid);
        if (clash) {
          // Named only to a caller who may read it (repo.update does not imply repo.list).
          const named = authz.can(principal, capability(RP, 'list'), clash.uid) ? `: ${clash.uid}` : '';
          throw alreadyExists(`A repo named ${name} already exists in this group${named}`);
        }
        rec.name = name;
        changed = true;
      }
      const data: RepoData = { ...rec.data, ...extras.set };
      for (const field of extras.cleared) delete data[field];
      if (description !== undefined) data.description = description;
      if (readme === '') delete data._readme;
      else if (readme !== undefined) data._readme = readme;
      if (JSON.stringify(data) !== JSON.stringify(rec.data)) {
        rec.data = data;
        changed = true;
      }
      // A PATCH that changes nothing leaves updateTime alone.
      if (!changed) return rec;
      rec.updateTime = now(ctx);
      store.update(rec);
      return rec;
    });
  }
}

export function tagOperations(ctx: DomainContext) {
  const reads = readOperations(ctx, TG);
  return {
    ...reads,

    async create(principal: Principal, input: NewTag): Promise<Record_<'tag'>> {
      authorize(ctx, principal, capabilities(TG, 'create'), RP, input.parent, 'parent');
      tagProblems(input);
      return commit(ctx, principal, 'tags.create', () => insertTag(ctx, input));
    },

    /** v1's UpdateTag: name, digest, deprecated, bundles (the vendor's v2 has no tag update). */
    async update(principal: Principal, uid: string, changes: Deferred<Changes>): Promise<Record_<'tag'>> {
      authorize(ctx, principal, capabilities(TG, 'update'), TG, uid);
      const c = await resolve(changes);
      const next: Partial<NewTag> = {
        ...(c.has('name') ? { name: text(c.get('name')) } : {}),
        ...(c.has('digest') ? { digest: text(c.get('digest')) } : {}),
        ...(c.has('deprecated') ? { deprecated: c.get('deprecated') === true } : {}),
        ...(c.has('bundles') ? { bundles: (c.get('bundles') ?? []) as string[] } : {}),
      };
      tagProblems(next);
      return commit(ctx, principal, 'tags.update', () => {
        const rec = mustGet(ctx, TG, uid);
        const data = tagData(next, rec.data);
        const renamed = next.name !== undefined && next.name !== rec.name;
        if (!renamed && JSON.stringify(data) === JSON.stringify(rec.data)) return rec;
        if (renamed) {
          if (ctx.store.siblingNamed(rec.parent!, TG.storeKind, next.name!, rec.uid)) throw alreadyExists(`A tag named ${next.name} already exists in this repo`);
          rec.name = next.name!;
        }
        rec.data = data;
        rec.updateTime = now(ctx);
        ctx.store.update(rec);
        return rec;
      });
    },

    async delete(principal: Principal, uid: string): Promise<void> {
      authorize(ctx, principal, capabilities(TG, 'delete'), TG, uid);
      await commit(ctx, principal, 'tags.delete', () => ctx.store.remove(mustGet(ctx, TG, uid).uid));
    },

    /** The spec scopes tags by their repo: a repo that does not exist is a 404, not an empty list. */
    async list(principal: Principal, input: ListInput) {
      const query = await resolve(input);
      if (query.childrenOf) authorize(ctx, principal, capabilities(TG, 'list'), RP, query.childrenOf, 'uidp.children_of');
      return reads.list(principal, query);
    },
  };
}

/** A repo's stored README ('' when none). */
export function readmeOf(repo: Record_<'repo'>): string {
  return repo.data._readme ?? '';
}

/** In a write (the create operation's and seeds'): a repo of an existing group; its name unique there. */
export function insertRepo(ctx: DomainContext, input: NewRepo): Record_<'repo'> {
  mustGet(ctx, G, input.parent, 'parent');
  if (ctx.store.siblingNamed(input.parent, RP.storeKind, input.name, '')) throw alreadyExists(`A repo named ${input.name} already exists in this group`);
  const rec = records.repo({
    uid: newChildUid(ctx.random, input.parent), parent: input.parent, name: input.name, description: input.description, ...extrasOf(input).set, readme: input.readme,
    createTime: now(ctx),
  });
  ctx.store.insert(rec);
  return rec;
}

const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;
const TAG_NAME_RE = /^[\w][\w.-]{0,127}$/;

/** A tag's fields held to the OCI rules: a tag name, a sha256 digest (or none: v1 creates tags without one). */
function tagProblems(t: Partial<NewTag>): void {
  const violations: FieldViolation[] = [];
  if (t.name !== undefined && !TAG_NAME_RE.test(t.name)) violations.push({ field: 'name', description: `must match ${TAG_NAME_RE.source} (an OCI tag)` });
  if (t.digest && !DIGEST_RE.test(t.digest)) violations.push({ field: 'digest', description: 'must be sha256: and 64 lower-case hex digits' });
  const bundles = t.bundles === undefined ? undefined : labelsProblem(t.bundles);
  if (bundles) violations.push({ field: 'bundles', description: bundles });
  if (violations.length) throw invalidArgument(violations);
}

/** A tag's stored data after a change: digest, deprecated, bundles (none stored when empty). */
function tagData(t: Partial<NewTag>, current: TagData): TagData {
  const out: TagData = { ...current };
  if (t.digest !== undefined) out.digest = t.digest;
  if (t.deprecated !== undefined) out.deprecated = t.deprecated;
  if (t.bundles !== undefined) {
    if (t.bundles.length) out.bundles = [...t.bundles];
    else delete out.bundles;
  }
  return out;
}

/** In a write, for serve alone (seeds): a tag of an existing repo; `updateTime` keeps a data set's history (created then too, when earlier). */
export function insertTag(ctx: DomainContext, input: NewTag): Record_<'tag'> {
  mustGet(ctx, RP, input.parent, 'parent');
  if (ctx.store.siblingNamed(input.parent, TG.storeKind, input.name, '')) throw alreadyExists(`A tag named ${input.name} already exists in this repo`);
  const t = now(ctx);
  const updated = input.updateTime ?? t;
  const rec = records.tag({
    uid: newChildUid(ctx.random, input.parent), parent: input.parent, name: input.name, digest: input.digest ?? '', deprecated: input.deprecated, bundles: input.bundles,
    createTime: updated < t ? updated : t, updateTime: updated,
  });
  ctx.store.insert(rec);
  return rec;
}
