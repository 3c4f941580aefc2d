// chainguard.platform.registry.{v2,v2beta1} (domain-calls.ts): ReposService and TagsService on serve's repos and
// tags (the domain's registry operations, as REST's routes call them); ImagesService, overlays
// and overlay bindings have no source in serve.
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { invalidField } from '../../../api/errors.js';
import { ImagesService as ImagesV2 } from '../../../gen/chainguard/platform/registry/v2/images_pb.js';
import { ReposService as ReposV2 } from '../../../gen/chainguard/platform/registry/v2/repos_pb.js';
import { TagsService as TagsV2 } from '../../../gen/chainguard/platform/registry/v2/tags_pb.js';
import { ImagesService as ImagesV2beta1 } from '../../../gen/chainguard/platform/registry/v2beta1/images_pb.js';
import { OverlayBindingsService } from '../../../gen/chainguard/platform/registry/v2beta1/overlay_bindings_pb.js';
import { OverlaysService } from '../../../gen/chainguard/platform/registry/v2beta1/overlays_pb.js';
import { ReposService as ReposV2beta1 } from '../../../gen/chainguard/platform/registry/v2beta1/repos_pb.js';
import { TagsService as TagsV2beta1 } from '../../../gen/chainguard/platform/registry/v2beta1/tags_pb.js';
import type { Changes } from '../../domain/patch.js';
import { readmeOf, REPO_EXTRAS } from '../../domain/registry.js';
import { wireFormOf } from '../wire.js';
import type { Record_, Store } from '../../store/store.js';
import { listOf, obj, pageJson, required, str, strings, unimplemented, vendorServices, type DomainService } from './domain-calls.js';

const repoForm = wireFormOf('Repo');
const tagForm = wireFormOf('Tag');
const repoJson = (r: Record_, store: Store) => repoForm.toWire(r, store) as JsonValue;
const tagJson = (r: Record_, store: Store) => tagForm.toWire(r, store) as JsonValue;

/** The Repo fields an UpdateRepo may name (its mask's paths, as FieldMask's JSON spells them), as the domain names them. */
const REPO_UPDATABLE: Record<string, string> = { name: 'name', description: 'description', ...Object.fromEntries(REPO_EXTRAS.map((f) => [f, f])) };

/** A published Repo's JSON with its fields as the domain names them (the published JSON name of sync_config is `sync_config`). */
function repoOf(json: JsonValue | undefined): JsonObject {
  const { sync_config: sync, ...repo } = obj(json);
  return sync === undefined ? repo : { ...repo, syncConfig: sync };
}

/** A published Repo (proto3 JSON) as the domain's repo fields. */
function repoFields(repo: JsonObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(REPO_UPDATABLE)) if (repo[key] !== undefined) out[field] = repo[key];
  return out;
}

/**
 * An update's changes: the mask's fields (`*`: all of them; none given: the fields the
 * message sets, as the published comment says), each with the message's value (absent: cleared).
 */
function maskedChanges(resource: JsonObject, mask: JsonValue | undefined, updatable: Record<string, string>, outputOnly: readonly string[]): Changes {
  const paths = str(mask).split(',').map((p) => p.trim()).filter(Boolean);
  const named = paths.includes('*') ? Object.keys(updatable) : paths.length ? paths : Object.keys(resource).filter((k) => k in updatable);
  const changes: Changes = new Map();
  for (const path of named) {
    if (outputOnly.includes(path)) continue;
    const field = updatable[path];
    if (!field) throw invalidField('update_mask', `${path} is not an updatable field (updatable: ${Object.keys(updatable).join(', ')})`);
    changes.set(field, resource[path]);
  }
  return changes;
}

const IMAGES = unimplemented('image contents (architectures, sizes)', 'GET /registry/v2/tags?uidp.children_of=REPO (the tags and their digests)');
const OVERLAYS = unimplemented('image overlays', 'GET /registry/v2/repos/{uid} (a repo\'s custom_overlay, stored as given)');

const repos: DomainService = {
  services: [ReposV2, ReposV2beta1],
  calls: {
    GetRepo: async (c, r) => repoJson(await c.domain.repos.get(c.principal, required(r, 'uid')), c.store),
    ListRepos: async (c, r) => {
      // name is proto3 `optional`: set (even to '') it filters.
      const name = typeof r.name === 'string' ? r.name : undefined;
      const page = await listOf(r, (p) => c.domain.repos.list(c.principal, p), (uid) => c.domain.repos.get(c.principal, uid), { name });
      return pageJson('repos', page, (i) => repoJson(i, c.store));
    },
    CreateRepo: async (c, r) => {
      const repo = repoOf(r.repo);
      const made = await c.domain.repos.create(c.principal, { parent: required(r, 'parent'), name: str(repo.name), description: str(repo.description), ...repoFields(repo) });
      return repoJson(made, c.store);
    },
    UpdateRepo: async (c, r) => {
      const repo = repoOf(r.repo);
      const changes = maskedChanges(repo, r.updateMask, REPO_UPDATABLE, ['uid', 'createTime', 'updateTime']);
      return repoJson(await c.domain.repos.update(c.principal, required(repo, 'repo.uid', 'uid'), changes), c.store);
    },
    DeleteRepo: async (c, r) => (await c.domain.repos.delete(c.principal, required(r, 'uid')), {}),
    GetRepoReadme: async (c, r) => {
      const { repo, content } = await c.domain.repos.readme(c.principal, required(r, 'uid'));
      return { uid: repo.uid, content };
    },
    UpdateRepoReadme: async (c, r) => {
      const readme = obj(r.repoReadme);
      const uid = required(readme, 'repo_readme.uid', 'uid');
      const updated = await c.domain.repos.updateReadme(c.principal, uid, str(readme.content));
      return { uid: updated.uid, content: readmeOf(updated) };
    },
  },
};

const tags: DomainService = {
  services: [TagsV2, TagsV2beta1],
  calls: {
    GetTag: async (c, r) => tagJson(await c.domain.tags.get(c.principal, required(r, 'uid')), c.store),
    ListTags: async (c, r) => {
      // Filters serve keeps no index for: refused rather than answered wrong across pages.
      for (const [field, json] of [['digest', 'digest'], ['updated_since', 'updatedSince']] as const) {
        if (r[json]) throw invalidField(field, 'is not a filter serve answers (name and uidp.children_of are)');
      }
      const page = await listOf(r, (p) => c.domain.tags.list(c.principal, p), (uid) => c.domain.tags.get(c.principal, uid), { name: str(r.name) || undefined });
      return pageJson('tags', page, (i) => tagJson(i, c.store));
    },
    CreateTag: async (c, r) => {
      const tag = obj(r.tag);
      const made = await c.domain.tags.create(c.principal, {
        parent: required(r, 'parent'), name: str(tag.name), digest: required(tag, 'tag.digest', 'digest'), deprecated: tag.deprecated === true, bundles: strings(tag.bundles),
      });
      return tagJson(made, c.store);
    },
    DeleteTag: async (c, r) => (await c.domain.tags.delete(c.principal, required(r, 'uid')), {}),
  },
};

const images: DomainService = {
  services: [ImagesV2, ImagesV2beta1],
  calls: { GetArchitectures: IMAGES, GetSize: IMAGES },
};

const overlays: DomainService = {
  services: [OverlaysService, OverlayBindingsService],
  calls: Object.fromEntries(
    ['GetOverlay', 'ListOverlays', 'CreateOverlay', 'DeleteOverlay', 'CreateOverlayBinding', 'GetOverlayBinding', 'ListOverlayBindings', 'DeleteOverlayBinding'].map((m) => [m, OVERLAYS]),
  ),
};

export const REGISTRY_SERVICES = vendorServices([repos, tags, images, overlays]);
