// The security advisories (seeds alone write them): an advisory (artifactName in the name
// column, advisoryId in alt_key: both exact-match list filters), a package's advisory
// document (by package name) and vulnerability metadata (by vulnerability id, the name column).
import type { AdvisoryDocument, VulnerabilityMetadata } from '../../../api/schemas.js';
import type { Record_ } from '../../store/record.js';
import { record, type Base, type WireOut } from './build.js';

export type AdvisoryData = Record<string, never>;
export type AdvisoryDocumentData = Omit<AdvisoryDocument, 'id'>;
export type VulnerabilityMetadataData = Omit<VulnerabilityMetadata, 'id'>;

export const advisory = (b: Base & { advisoryId: string; artifactName: string }) => record('advisory', null, b.artifactName, b.advisoryId, b, {});

export const advisoryDocument = (b: Base & { uid: string; document: AdvisoryDocument }) =>
  record('advisoryDocument', null, b.document.id, null, b, { advisories: b.document.advisories });

export const vulnerabilityMetadata = (b: Base & { uid: string; metadata: VulnerabilityMetadata }) => {
  const { id, ...rest } = b.metadata;
  return record('vulnerabilityMetadata', null, id, null, b, rest);
};

export function advisoryToWire(r: Record_<'advisory'>): WireOut<'Advisory'> {
  return { uid: r.uid, advisoryId: r.altKey ?? '', artifactName: r.name, createTime: r.createTime, updateTime: r.updateTime };
}

/** A package's advisory document, as stored. */
export function advisoryDocumentOf(r: Record_<'advisoryDocument'>): AdvisoryDocument {
  return { id: r.name, advisories: r.data.advisories };
}

/** Vulnerability metadata, as stored (and sent). */
export function vulnerabilityMetadataOf(r: Record_<'vulnerabilityMetadata'>): VulnerabilityMetadata {
  return { id: r.name, ...r.data };
}
