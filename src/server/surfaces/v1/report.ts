// Who still calls v1: the journal's v1 calls (each marked `deprecated` by the v1 surface),
// counted by caller and call, with the v2 call to use instead. `GET /_pctl/v1-callers`.
import type { V1Caller, V1Callers } from '../../../api/journal.js';
import type { Journal } from '../../pipeline/journal.js';
import type { Store } from '../../store/store.js';

export function v1Callers(journal: Journal, store: Store): V1Callers {
  const entries = journal.since(0);
  const rows = new Map<string, V1Caller>();
  for (const e of entries) {
    if (!e.deprecated) continue;
    const identity = e.identity ?? '';
    const key = `${identity}\n${e.deprecated.call}`;
    const row = rows.get(key) ?? { identity, name: identity ? (store.get(identity)?.name ?? '') : '', call: e.deprecated.call, count: 0, lastTime: e.time, successor: e.deprecated.successor };
    row.count++;
    row.lastTime = e.time;
    rows.set(key, row);
  }
  const callers = [...rows.values()].sort((a, b) => b.count - a.count || a.identity.localeCompare(b.identity) || a.call.localeCompare(b.call));
  return { callers, window: { requests: entries.length, ...(entries[0] ? { since: entries[0].time } : {}) } };
}
