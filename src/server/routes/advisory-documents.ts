// /advisory/v2/ (Integrations): security advisory documents by package, and vulnerability
// metadata. Read-only, public data: any valid token reads them (no capability).
import { invalidField } from '../../api/errors.js';
import { listResponse, type ServerContext } from '../context.js';
import type { ResourceRoutes } from '../http.js';
import { advisoryDocumentToWire, vulnerabilityMetadataToWire, WireJson } from '../models.js';
import { singleParam } from '../params.js';

export const ADVISORY_DOCUMENTS_PATH = '/advisory/v2/documents';
export const VULNERABILITY_METADATA_PATH = '/advisory/v2/metadata';

export function advisoryDocumentRoutes(ctx: ServerContext): ResourceRoutes[] {
  const { store } = ctx;
  const metadataJson = new WireJson(store, vulnerabilityMetadataToWire);
  const documents: ResourceRoutes = {
    path: ADVISORY_DOCUMENTS_PATH,
    // Not paged: every document of the package (or all), each cut to the advisories naming a requested CVE.
    list: (req) => {
      for (const key of req.query.keys()) if (key !== 'id' && key !== 'cves') throw invalidField(key, 'is not a known query parameter');
      const id = singleParam(req.query, 'id', ['id']);
      const cves = req.query.getAll('cves').flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
      const docs = store
        .roots('advisoryDocument')
        .filter((r) => id === undefined || r.name === id)
        .map(advisoryDocumentToWire)
        .map((doc) => (cves.length ? { ...doc, advisories: doc.advisories.filter((a) => cves.some((c) => a.id === c || a.aliases.includes(c))) } : doc))
        .filter((doc) => !cves.length || doc.advisories.length);
      return { body: { documents: docs } };
    },
  };
  const metadata: ResourceRoutes = {
    path: VULNERABILITY_METADATA_PATH,
    list: (req) => listResponse(ctx, 'vulnerabilityMetadata', req.query, { kind: 'vulnerabilityMetadata', filterColumns: { id: 'name', ids: 'name' } }, metadataJson),
  };
  return [documents, metadata];
}
