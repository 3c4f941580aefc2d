// The read-only catalogues, loaded from seeds: libraries (/libraries/v2/artifacts and their
// versions: libraries.list held on any group reads them all), security advisories, and the
// Integrations data (advisory documents by package, vulnerability metadata: any valid token
// reads them).
import { invalidField, notFound } from '../../api/errors.js';
import { advisories as ADV, artifacts as AR, capabilities } from '../../api/registry/index.js';
import { ECOSYSTEMS, ecosystemOf, ecosystemRule, type AdvisoryDocument, type VulnerabilityMetadata } from '../../api/schemas.js';
import type { Principal } from '../auth/principal.js';
import type { ListPage, ListQuery } from '../store/list.js';
import type { Record_ } from '../store/store.js';
import { now, resolve, type DomainContext } from './context.js';
import { readOperations, type ListInput } from './reads.js';
import { advisoryDocumentOf } from './kinds/advisory.js';
import { records } from './kinds/index.js';
import { newAdvisoryUid, newChildUid } from './records.js';

export interface NewLibrary {
  name: string;
  ecosystem: (typeof ECOSYSTEMS)[number];
  description?: string | undefined;
  /** Oldest first: the last one is the latest version. */
  versions: { version: string; description?: string | undefined; sizeBytes?: string | undefined; updateTime?: string | undefined }[];
}

export interface NewAdvisory { advisoryId: string; artifactName: string; updateTime?: string | undefined }

/** Which advisory documents: those of the package `id` (or all), each cut to the advisories naming one of `cves` (none: all). */
export interface AdvisoryDocumentQuery { id?: string | undefined; cves: readonly string[] }

/** The artifacts' filter (ListQuery.filters): their ecosystems. */
const ECOSYSTEMS_FILTER = 'ecosystems';

export function artifactOperations(ctx: DomainContext) {
  const { store, authz } = ctx;
  // ListArtifacts' published rule (ListArtifactVersions and GetArtifactCount have the same).
  const caps = capabilities(AR, 'list');
  const requireCap = (principal: Principal) => authz.requireAnywhere(principal, caps);
  return {
    /** 403 unless the caller may read the catalogue (every path under it answers so first). */
    async access(principal: Principal): Promise<void> {
      requireCap(principal);
    },

    /** `ecosystems` is required; nameContains, a substring of the name in any case; by name unless the query orders otherwise. */
    async list(principal: Principal, input: ListInput): Promise<ListPage> {
      requireCap(principal);
      const query = await resolve(input);
      const ecosystems = ecosystemsOf(query.filters?.[ECOSYSTEMS_FILTER] ?? []);
      return ctx.lists.list(
        { ...query, order: query.order ?? { field: 'name', desc: false }, filters: { [ECOSYSTEMS_FILTER]: ecosystems } },
        { kind: AR.storeKind, filterColumns: { [ECOSYSTEMS_FILTER]: 'alt_key' } },
      );
    },

    /** How many artifacts each of the `ecosystems` holds. */
    async count(principal: Principal, ecosystems: readonly string[]): Promise<{ ecosystem: string; totalCount: number }[]> {
      requireCap(principal);
      return ecosystemsOf(ecosystems).map((ecosystem) => ({ ecosystem, totalCount: store.countByAltKey(AR.storeKind, ecosystem) }));
    },

    /** An artifact's versions (the artifact is the scope: the query names none), oldest first unless the query orders otherwise. */
    async versions(principal: Principal, artifactUid: string, input: ListInput): Promise<ListPage> {
      requireCap(principal);
      const artifact = store.get(artifactUid, AR.storeKind);
      if (!artifact) throw notFound(AR.kind, artifactUid);
      const query: ListQuery = await resolve(input);
      return ctx.lists.list({ ...query, order: query.order ?? { field: 'createTime', desc: false }, childrenOf: artifact.uid }, { kind: 'artifactVersion' });
    },
  };
}

export function advisoryOperations(ctx: DomainContext) {
  return readOperations(ctx, ADV);
}

export function advisoryDocumentOperations(ctx: DomainContext) {
  return {
    /** Not paged: every document of the package `id` (or all), each cut to the advisories naming one of `cves`. */
    async list(_principal: Principal, { id, cves }: AdvisoryDocumentQuery): Promise<AdvisoryDocument[]> {
      return ctx.store
        .roots('advisoryDocument')
        .filter((r) => id === undefined || r.name === id)
        .map(advisoryDocumentOf)
        .map((doc) => (cves.length ? { ...doc, advisories: doc.advisories.filter((a) => cves.some((c) => a.id === c || a.aliases.includes(c))) } : doc))
        .filter((doc) => !cves.length || doc.advisories.length);
    },
  };
}

export function vulnerabilityMetadataOperations(ctx: DomainContext) {
  return {
    async list(_principal: Principal, input: ListInput): Promise<ListPage> {
      return ctx.lists.list(await resolve(input), { kind: 'vulnerabilityMetadata', filterColumns: { id: 'name', ids: 'name' } });
    },
  };
}

/** In a write, for serve alone (seeds): a library and its versions; their times are the versions'. */
export function insertLibrary(ctx: DomainContext, lib: NewLibrary): Record_ {
  const t = now(ctx);
  const times = lib.versions.map((v) => v.updateTime ?? t);
  const newest = times.length ? times.reduce((a, b) => (a > b ? a : b)) : t;
  const oldest = times.length ? times.reduce((a, b) => (a < b ? a : b)) : t;
  const uid = newAdvisoryUid(ctx.random);
  const artifact = records.artifact({
    uid, name: lib.name, ecosystem: lib.ecosystem, description: lib.description, latestVersion: lib.versions[lib.versions.length - 1]?.version ?? '',
    versionCount: lib.versions.length, createTime: oldest, updateTime: newest,
  });
  ctx.store.insert(artifact);
  lib.versions.forEach((v, i) => {
    ctx.store.insert(records.artifactVersion({
      uid: newChildUid(ctx.random, uid), parent: uid, artifactName: lib.name, version: v.version, description: v.description, sizeBytes: v.sizeBytes ?? '0',
      createTime: times[i]!, updateTime: times[i]!,
    }));
  });
  return artifact;
}

/** In a write, for serve alone (seeds): an advisory; `updateTime` keeps a data set's history. */
export function insertAdvisory(ctx: DomainContext, a: NewAdvisory): Record_ {
  const t = now(ctx);
  const updated = a.updateTime ?? t;
  const rec = records.advisory({ uid: newAdvisoryUid(ctx.random), advisoryId: a.advisoryId, artifactName: a.artifactName, createTime: updated < t ? updated : t, updateTime: updated });
  ctx.store.insert(rec);
  return rec;
}

export function insertAdvisoryDocument(ctx: DomainContext, document: AdvisoryDocument): Record_ {
  const rec = records.advisoryDocument({ uid: newAdvisoryUid(ctx.random), document, createTime: now(ctx) });
  ctx.store.insert(rec);
  return rec;
}

export function insertVulnerabilityMetadata(ctx: DomainContext, metadata: VulnerabilityMetadata): Record_ {
  const rec = records.vulnerabilityMetadata({ uid: newAdvisoryUid(ctx.random), metadata, createTime: now(ctx) });
  ctx.store.insert(rec);
  return rec;
}

/** `ecosystems`: required (several, or comma-separated), JAVA or PYTHON in any case. */
function ecosystemsOf(values: readonly string[]): string[] {
  if (!values.length) throw invalidField('ecosystems', `is required: ${ECOSYSTEMS.join(', ')} (repeatable)`);
  const out = new Set<string>();
  for (const v of values) {
    const ecosystem = ecosystemOf(v);
    if (!ecosystem) throw invalidField('ecosystems', ecosystemRule(v));
    out.add(ecosystem);
  }
  return [...out];
}
