// The sign-in pages' HTML: files in templates/ beside this module (shipped with the package,
// see package.json `files`), filled by name. Read on first use, then kept: a serve nobody
// signs in to never reads them, and no CLI command loads this module.
import { readFileSync } from 'node:fs';
import { PACKAGE_ROOT } from '../../base/package-files.js';

const DIR = new URL('src/server/surfaces/oauth/templates/', PACKAGE_ROOT);

export type TemplateName =
  | 'layout' | 'owner' | 'pick' | 'pick-identity' | 'pick-none' | 'intro-console' | 'intro-client' | 'intro-device'
  | 'code' | 'notice' | 'refused' | 'denied' | 'signed-in' | 'redirect';

const cache = new Map<TemplateName, string>();

/**
 * Template `name` with each `{{key}}` replaced by `values[key]` HTML-escaped, and each
 * `{{{key}}}` by `values[key]` as is: HTML made by other templates, never text from a request.
 */
export function render(name: TemplateName, values: Record<string, string> = {}): string {
  let text = cache.get(name);
  if (text === undefined) cache.set(name, (text = readFileSync(new URL(`${name}.html`, DIR), 'utf8').replace(/\n$/, '')));
  return text.replace(/\{\{\{(\w+)\}\}\}|\{\{(\w+)\}\}/g, (_, raw: string | undefined, escaped: string | undefined) => {
    const value = values[(raw ?? escaped)!];
    if (value === undefined) throw new Error(`template ${name} has no value for ${raw ?? escaped}`);
    return raw ? value : esc(value);
  });
}

export function esc(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}
