// /advisory/v2/ (Integrations): security advisory documents by package, and vulnerability
// metadata. Read-only, public data: any valid token reads them (no capability).
import type { ResourceRoutes } from '../../pipeline/handler.js';
import { vulnerabilityMetadataOf } from '../../domain/kinds/advisory.js';
import { forKind } from '../../domain/kinds/build.js';
import { WireJson } from '../wire.js';
import { parseAdvisoryDocumentQuery, parseListQuery, VULNERABILITY_METADATA_LIST } from '../list-query.js';
import { listResponse, type RestContext } from './resource.js';

const ADVISORY_DOCUMENTS_PATH = '/advisory/v2/documents';
const VULNERABILITY_METADATA_PATH = '/advisory/v2/metadata';

export function advisoryDocumentRoutes(rest: RestContext): ResourceRoutes[] {
  const { domain } = rest;
  const metadataJson = new WireJson(rest.store, forKind('vulnerabilityMetadata', vulnerabilityMetadataOf));
  return [
    { path: ADVISORY_DOCUMENTS_PATH, list: async (req) => ({ body: { documents: await domain.advisoryDocuments.list(req.principal, parseAdvisoryDocumentQuery(req.query)) } }) },
    { path: VULNERABILITY_METADATA_PATH, list: async (req) => listResponse('vulnerabilityMetadata', await domain.vulnerabilityMetadata.list(req.principal, () => parseListQuery(req.query, VULNERABILITY_METADATA_LIST)), metadataJson) },
  ];
}
