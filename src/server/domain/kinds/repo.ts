// A repo of a group's registry: its name unique among its siblings; the vendor's catalogue
// fields stored as given (serve builds nothing); its README kept beside them.
import type { Record_ } from '../../store/record.js';
import { record, type Base, type Json, type WireOut } from './build.js';

/** The vendor's catalog tiers (CatalogTier), as proto3 JSON names them. */
export const CATALOG_TIERS = ['CATALOG_TIER_UNSPECIFIED', 'CATALOG_TIER_APPLICATION', 'CATALOG_TIER_BASE', 'CATALOG_TIER_FIPS', 'CATALOG_TIER_AI', 'CATALOG_TIER_DEVTOOLS', 'CATALOG_TIER_COMMERCIAL'] as const;

/** What a caller may set of a sync configuration; the rest is the vendor's to decide. */
interface SyncConfig { source: string; google?: string; amazon?: string; azure?: string }

/** The catalogue fields (proto3 JSON names and values of the vendor's Repo), none stored when cleared. */
export interface RepoExtras {
  catalogTier?: (typeof CATALOG_TIERS)[number];
  bundles?: string[];
  aliases?: string[];
  activeTags?: string[];
  syncConfig?: SyncConfig;
  customOverlay?: { [key: string]: Json };
}

export interface RepoData extends RepoExtras {
  description: string;
  /** Not a field of the v2 Repo (RepoReadme is its own message). */
  _readme?: string;
}

export const repo = (b: Base & { parent: string; name: string; description?: string | undefined } & RepoExtras & { readme?: string | undefined }) => {
  const { uid: _u, createTime: _c, updateTime: _t, parent, name, description, readme, ...extras } = b;
  return record('repo', parent, name, null, b, { description: description ?? '', ...extras, ...(readme ? { _readme: readme } : {}) });
};

/** A repo as stored but its README; its sync configuration under the published JSON name, `sync_config`. */
export function repoToWire(r: Record_<'repo'>): WireOut<'Repo'> {
  const { _readme: _, syncConfig, ...fields } = r.data;
  return { uid: r.uid, name: r.name, ...fields, createTime: r.createTime, updateTime: r.updateTime, ...(syncConfig === undefined ? {} : { sync_config: syncConfig }) };
}
