// How profiles are shown: the token is always `***` unless explicitly asked for.
import type { ConfigStore, Profile } from '../../config/index.js';
import { col, type View } from '../../api/registry/define.js';
import { UsageError } from '../errors.js';

export interface ProfileRow {
  name: string;
  apiUrl: string;
  token?: string;
  current: boolean;
}

export const MASK = '***';

export const profileView: View<ProfileRow> = {
  noun: 'profiles',
  id: (p) => p.name,
  columns: [
    col<ProfileRow>('CURRENT', (p) => (p.current ? '*' : '')),
    col<ProfileRow>('NAME', (p) => p.name),
    col<ProfileRow>('API URL', (p) => p.apiUrl),
    col<ProfileRow>('TOKEN', (p) => p.token ?? ''),
  ],
};

export function profileRow(store: Pick<ConfigStore, 'currentProfileName'>, name: string, profile: Profile, showToken = false): ProfileRow {
  const row: ProfileRow = { name, apiUrl: profile.apiUrl, current: store.currentProfileName() === name };
  if (profile.token) row.token = showToken ? profile.token : MASK;
  return row;
}

/** `api-url`, `apiUrl` and `api_url` all name the URL; `token` the token. */
export function profileKey(key: string): 'apiUrl' | 'token' {
  const k = key.toLowerCase().replace(/[-_]/g, '');
  if (k === 'apiurl' || k === 'url') return 'apiUrl';
  if (k === 'token') return 'token';
  throw UsageError.invalidField('key', `must be api-url or token, got "${key}"`);
}
