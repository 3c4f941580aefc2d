// Profiles on top of `conf`: each profile holds an API URL and a bearer token; one of them
// is current. The file is written with mode 0600, and a directory we create is 0700 whatever
// the umask, because it holds tokens.
//
// Only command code and `pctl serve` import this module, so `conf` (and its JSON-schema
// machinery) never loads for `pctl --version` or `--help`.
import Conf from 'conf';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { configDir, invalidConfigFile, type ConfigFile, type Profile } from './file.js';

export type { Profile };

type StoreShape = ConfigFile & Record<string, unknown>;

export interface OpenConfigOptions {
  /** Where config.json lives; defaults to PCTL_CONFIG_DIR, then the platform config dir for pctl. */
  configDir?: string;
}

/** A profile name: something a shell user can type without quoting, and a safe JSON key. */
export const PROFILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export class ConfigStore {
  readonly #conf: Conf<StoreShape>;

  constructor(opts: OpenConfigOptions = {}) {
    const cwd = opts.configDir ?? process.env.PCTL_CONFIG_DIR;
    // conf creates its directory 0777 minus the umask; it holds tokens, so make it first, 0700.
    const dir = configDir(cwd);
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700); // mkdir's mode is filtered by the umask
    }
    try {
      this.#conf = new Conf<StoreShape>({
        projectName: 'pctl',
        projectSuffix: '',
        ...(cwd ? { cwd } : {}),
        configFileMode: 0o600,
        // Profile names may contain dots; keys are managed as whole objects instead.
        accessPropertiesByDotNotation: false,
      });
    } catch (err) {
      if (err instanceof SyntaxError) throw invalidConfigFile(join(dir, 'config.json'));
      throw err;
    }
  }

  /** The file the profiles live in (shown by `pctl config list --debug`-style diagnostics). */
  get path(): string {
    return this.#conf.path;
  }

  profiles(): Record<string, Profile> {
    return { ...(this.#conf.get('profiles') ?? {}) };
  }

  profile(name: string): Profile | undefined {
    return this.profiles()[name];
  }

  currentProfileName(): string | undefined {
    const name = this.#conf.get('currentProfile');
    return typeof name === 'string' && name ? name : undefined;
  }

  setProfile(name: string, profile: Profile): void {
    const clean: Profile = { apiUrl: profile.apiUrl };
    if (profile.token) clean.token = profile.token;
    if (profile.token && profile.refreshToken) clean.refreshToken = profile.refreshToken;
    this.#conf.set('profiles', { ...this.profiles(), [name]: clean });
  }

  /** Removes a profile; when it was current, no profile is current afterwards. Returns false when absent. */
  deleteProfile(name: string): boolean {
    const all = this.profiles();
    if (!(name in all)) return false;
    delete all[name];
    this.#conf.set('profiles', all);
    if (this.currentProfileName() === name) this.#conf.delete('currentProfile');
    return true;
  }

  useProfile(name: string): void {
    this.#conf.set('currentProfile', name);
  }
}

export function openConfig(opts: OpenConfigOptions = {}): ConfigStore {
  return new ConfigStore(opts);
}

/**
 * Saves (creates or replaces) a profile. `pctl serve` calls this to register the `local`
 * profile, with makeCurrentIfNone so that `pctl groups list` in another terminal just works.
 */
export function saveProfile(
  name: string,
  profile: Profile,
  opts: { makeCurrentIfNone?: boolean; configDir?: string } = {},
): { current: string | undefined } {
  const store = openConfig({ ...(opts.configDir !== undefined ? { configDir: opts.configDir } : {}) });
  store.setProfile(name, profile);
  if (opts.makeCurrentIfNone) {
    const current = store.currentProfileName();
    if (!current || !store.profile(current)) store.useProfile(name);
  }
  return { current: store.currentProfileName() };
}
