// How snapshots print (`pctl serve snapshot list`, `save`), and the check every verb makes
// of a NAME before anything is sent.
import { snapshotNameProblem, type SnapshotInfo } from '../../../../api/snapshots.js';
import type { View } from '../../../../output/columns.js';
import { UsageError } from '../../../errors.js';

export const snapshotView: View<SnapshotInfo> = {
  noun: 'snapshots',
  id: (s) => s.name,
  columns: [
    { header: 'NAME', value: (s) => s.name, keep: true },
    { header: 'SIZE', value: (s) => s.sizeBytes },
    { header: 'CREATED', value: (s) => s.createTime, kind: 'time' },
  ],
};

/** A usage error (exit 2) in the server's own words when NAME could not name a snapshot. */
export function checkSnapshotName(name: string): string {
  const problem = snapshotNameProblem(name);
  if (problem) throw UsageError.invalidField('name', problem);
  return name;
}
