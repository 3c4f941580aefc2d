// Snapshots of a running `pctl serve` (a serve-only extension, never part of the platform
// API): their names and their JSON shape on the control API (`/_pctl/snapshots`). Shared by
// the CLI (which checks a name before sending it) and the server (which checks it again).

/** A snapshot as the control API lists it. */
export interface SnapshotInfo {
  name: string;
  sizeBytes: number;
  /** When it was saved, by serve's clock. */
  createTime: string;
}

/** A name is a file name in DATA_DIR/snapshots: nothing that could leave that dir, hide, or differ only in case. */
export const SNAPSHOT_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** What is wrong with a snapshot name, or undefined when it is fine. */
export function snapshotNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !name) return 'is required (a snapshot name)';
  if (!SNAPSHOT_NAME.test(name)) {
    return `must match ${SNAPSHOT_NAME.source}: 1 to 64 of a-z, 0-9, ".", "_" and "-", starting with a letter or digit`;
  }
  return undefined;
}
