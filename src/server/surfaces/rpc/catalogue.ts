// The catalogue the vendor publishes and serve holds from seeds, read-only:
// vulnerabilities.AdvisoriesService (advisories), advisory.SecurityAdvisoryService (advisory
// documents, vulnerability metadata), libraries.ArtifactsService (Java and Python libraries).
// The published enums are prefixed (ECOSYSTEM_JAVA, TYPE_CVSS_V3) where serve's REST JSON
// says JAVA and CVSS_V3: renamed here, both ways.
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { invalidField } from '../../../api/errors.js';
import type { AdvisoryDocument } from '../../../api/schemas.js';
import { advisories as ADV } from '../../../api/registry/index.js';
import { SecurityAdvisoryService as AdvisoryV2 } from '../../../gen/chainguard/platform/advisory/v2/advisory_pb.js';
import { SecurityAdvisoryService as AdvisoryV2beta1 } from '../../../gen/chainguard/platform/advisory/v2beta1/advisory_pb.js';
import { ArtifactsService as ArtifactsV2 } from '../../../gen/chainguard/platform/libraries/v2/artifacts_pb.js';
import { ArtifactsService as ArtifactsV2beta1 } from '../../../gen/chainguard/platform/libraries/v2beta1/artifacts_pb.js';
import { RequestGroupsService } from '../../../gen/chainguard/platform/libraries/v2beta1/request_groups_pb.js';
import { AdvisoriesService as AdvisoriesV2 } from '../../../gen/chainguard/platform/vulnerabilities/v2/advisories_pb.js';
import { AdvisoriesService as AdvisoriesV2beta1 } from '../../../gen/chainguard/platform/vulnerabilities/v2beta1/advisories_pb.js';
import { vulnerabilityMetadataOf } from '../../domain/kinds/advisory.js';
import { artifactToWire, artifactVersionToWire } from '../../domain/kinds/artifact.js';
import { forKind } from '../../domain/kinds/build.js';
import { wireFormOf } from '../wire.js';
import { ARTIFACT_LIST, ARTIFACT_VERSION_LIST, listOptionsOf, VULNERABILITY_METADATA_LIST } from '../list-query.js';
import { listOf, listQuery, pageJson, required, str, strings, unimplemented, vendorServices, type DomainService } from './domain-calls.js';

const advisoryForm = wireFormOf('Advisory');

/** Serve's enum value with the published prefix ('' stays the default). */
const prefixed = (prefix: string, v: unknown) => (typeof v === 'string' && v ? `${prefix}${v}` : undefined);

/** The published ListAdvisoriesRequest filters serve has, by their REST parameters. */
const ADVISORY_FILTERS: Record<string, string> = { advisoryIds: 'advisoryIds', artifactNames: 'artifactNames' };
/** Its fields that are no filter: paging and the UIDPFilter. */
const NOT_FILTERS = new Set(['uidp', 'pageSize', 'pageToken', 'orderBy', 'skip']);

const advisories: DomainService = {
  services: [AdvisoriesV2, AdvisoriesV2beta1],
  calls: {
    GetAdvisory: async (c, r) => advisoryForm.toWire(await c.domain.advisories.get(c.principal, required(r, 'uid')), c.store) as JsonValue,
    ListAdvisories: async (c, r) => {
      const filters: Record<string, string[]> = {};
      for (const [field, value] of Object.entries(r)) {
        if (NOT_FILTERS.has(field)) continue;
        const param = ADVISORY_FILTERS[field];
        if (!param) throw invalidField(field, `is not a filter serve answers (it filters advisories by ${Object.keys(ADVISORY_FILTERS).join(' and ')})`);
        filters[param] = strings(value);
      }
      const page = await listOf(r, (p) => c.domain.advisories.list(c.principal, p), (uid) => c.domain.advisories.get(c.principal, uid), filters, listOptionsOf(ADV));
      return pageJson('advisories', page, (i) => advisoryForm.toWire(i, c.store) as JsonValue);
    },
  },
};

/** A document's events with the published enum names (false-positive types are prefixed TYPE_). */
function documentJson(doc: AdvisoryDocument): JsonValue {
  return {
    id: doc.id,
    advisories: doc.advisories.map((a) => ({
      id: a.id, aliases: a.aliases, packageNamespace: a.packageNamespace,
      events: a.events.map((e) => (e.falsePositiveDetermination ? { ...e, falsePositiveDetermination: { ...e.falsePositiveDetermination, type: prefixed('TYPE_', e.falsePositiveDetermination.type) } } : e)),
    })),
  } as JsonValue;
}

const metadataJson = forKind('vulnerabilityMetadata', (r): JsonValue => {
  const m = vulnerabilityMetadataOf(r);
  return {
    ...m,
    references: m.references.map((x) => ({ ...x, type: prefixed('TYPE_', x.type) })),
    severities: m.severities.map((x) => ({ ...x, type: prefixed('TYPE_', x.type) })),
  } as JsonValue;
});

const securityAdvisory: DomainService = {
  services: [AdvisoryV2, AdvisoryV2beta1],
  calls: {
    ListDocuments: async (c, r) => {
      const cves = strings(r.cves).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
      return { documents: (await c.domain.advisoryDocuments.list(c.principal, { id: str(r.id) || undefined, cves })).map(documentJson) };
    },
    ListVulnerabilityMetadata: async (c, r) => {
      const more = { ...(str(r.id) ? { id: str(r.id) } : {}), ...(strings(r.ids).length ? { ids: strings(r.ids).join(',') } : {}) };
      const page = await c.domain.vulnerabilityMetadata.list(c.principal, listQuery(r, more, VULNERABILITY_METADATA_LIST));
      return pageJson('vulnerabilityMetadata', page, metadataJson);
    },
    ListResolvedVulnsReports: unimplemented('resolved-vulnerability reports of images', 'GET /advisory/v2/documents (the advisories and their fixed events)'),
  },
};

/** The published ecosystems (ECOSYSTEM_JAVA) as serve's (JAVA). */
function ecosystemsOf(r: JsonObject): string {
  return strings(r.ecosystems).map((e) => e.replace(/^ECOSYSTEM_/, '')).join(',');
}

const artifactJson = forKind('artifact', (r): JsonValue => {
  const w = artifactToWire(r);
  return { ...w, ecosystem: prefixed('ECOSYSTEM_', w.ecosystem) } as JsonValue;
});

const artifacts: DomainService = {
  services: [ArtifactsV2, ArtifactsV2beta1],
  calls: {
    ListArtifacts: async (c, r) => {
      if (r.cudaVersion !== undefined || r.remediated === true) throw invalidField(r.cudaVersion !== undefined ? 'cuda_version' : 'remediated', 'is not a filter serve answers (ecosystems and query are)');
      const more = { ecosystems: ecosystemsOf(r) || undefined, query: str(r.query) || undefined };
      return pageJson('artifacts', await c.domain.artifacts.list(c.principal, listQuery(r, more, ARTIFACT_LIST)), artifactJson);
    },
    ListArtifactVersions: async (c, r) => pageJson('artifactVersions', await c.domain.artifacts.versions(c.principal, required(r, 'artifact_id', 'artifactId'), listQuery(r, {}, ARTIFACT_VERSION_LIST)), forKind('artifactVersion', (i) => artifactVersionToWire(i) as JsonValue)),
    GetArtifactCount: async (c, r) => {
      const ecosystems = ecosystemsOf(r).split(',').map((v) => v.trim()).filter(Boolean);
      const counts = await c.domain.artifacts.count(c.principal, ecosystems);
      return { counts: counts.map(({ ecosystem, totalCount }) => ({ ecosystem: prefixed('ECOSYSTEM_', ecosystem), totalCount: String(totalCount) })) } as JsonValue;
    },
  },
};

const REQUEST_GROUPS = unimplemented('library request groups', 'GET /libraries/v2/artifacts (the libraries serve holds)');
const requestGroups: DomainService = {
  services: [RequestGroupsService],
  calls: Object.fromEntries(RequestGroupsService.methods.map((m) => [m.name, REQUEST_GROUPS])),
};

export const CATALOGUE_SERVICES = vendorServices([advisories, securityAdvisory, artifacts, requestGroups]);
