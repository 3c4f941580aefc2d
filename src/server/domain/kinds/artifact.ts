// The library catalogue (seeds alone write it): an artifact, its ecosystem in alt_key (the
// `ecosystems` filter), and its versions below it, each version in the name column.
import type * as z from 'zod';
import type { ECOSYSTEMS } from '../../../api/schemas.js';
import type * as Wire from '../../../api/schemas.js';
import type { Record_ } from '../../store/record.js';
import { record, type Base, type WireOut } from './build.js';

export interface ArtifactData {
  description: string;
  latestVersion: string;
  versionCount: number;
}

export interface ArtifactVersionData {
  artifactName: string;
  description: string;
  /** Decimal, as the wire's int64 in JSON. */
  sizeBytes: string;
}

export const artifact = (b: Base & { uid: string; name: string; ecosystem: (typeof ECOSYSTEMS)[number]; description?: string | undefined; latestVersion: string; versionCount: number }) =>
  record('artifact', null, b.name, b.ecosystem, b, { description: b.description ?? '', latestVersion: b.latestVersion, versionCount: b.versionCount });

export const artifactVersion = (b: Base & { parent: string; artifactName: string; version: string; description?: string | undefined; sizeBytes: string }) =>
  record('artifactVersion', b.parent, b.version, null, b, { artifactName: b.artifactName, description: b.description ?? '', sizeBytes: b.sizeBytes });

export function artifactToWire(r: Record_<'artifact'>): WireOut<'Artifact'> {
  return {
    uid: r.uid,
    name: r.name,
    description: r.data.description,
    ecosystem: (r.altKey ?? 'JAVA') as (typeof ECOSYSTEMS)[number],
    latestVersion: r.data.latestVersion,
    versionCount: r.data.versionCount,
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}

export function artifactVersionToWire(r: Record_<'artifactVersion'>): z.input<typeof Wire.ArtifactVersion> {
  return {
    uid: r.uid,
    name: r.data.artifactName,
    version: r.name,
    description: r.data.description,
    sizeBytes: r.data.sizeBytes || '0',
    createTime: r.createTime,
    updateTime: r.updateTime,
  };
}
