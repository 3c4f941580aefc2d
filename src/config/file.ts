// Where the profiles live, and a read of them without `conf`: commands that only read their
// connection (every API command) skip conf's JSON-schema machinery, ~20 ms of a command's
// start. Writes still go through conf (index.ts), which owns the file's format and mode.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';

export interface Profile {
  apiUrl: string;
  token?: string;
  /** The refresh token of a token exchange (pctl auth login --identity-token): the token is renewed with it near expiry. */
  refreshToken?: string;
}

export interface ConfigFile {
  currentProfile?: string;
  profiles?: Record<string, Profile>;
}

/** The config directory: PCTL_CONFIG_DIR when given, else the platform's config dir for pctl. */
export function configDir(dir: string | undefined): string {
  return dir ?? envPaths('pctl', { suffix: '' }).config;
}

/** config.json's profiles, as conf wrote them; empty when there is no file yet. */
export function readConfigFile(dir: string | undefined): ConfigFile {
  const path = join(configDir(dir), 'config.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed) : {};
  } catch {
    throw invalidConfigFile(path);
  }
}

export function invalidConfigFile(path: string): Error {
  return new Error(`${path} is not valid JSON: fix it, or remove it and save the profiles again`);
}
