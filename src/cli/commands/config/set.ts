// pctl config set NAME api-url URL | pctl config set NAME --api-url URL | pctl config set NAME token < file
// The token is read from stdin (or typed at a prompt), never taken as an argument:
// arguments end up in shell history and in `ps`.
import { checkApiUrl } from '../../connect.js';
import { PROFILE_NAME_RE } from '../../../config/index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { profileKey } from '../../shared/profiles.js';

export async function run(ctx: Context, [name, keyArg, valueArg]: string[]): Promise<number> {
  let key = keyArg;
  let value = valueArg;
  if (!PROFILE_NAME_RE.test(name!)) {
    throw UsageError.invalidField('name', 'must start with a letter or digit and hold only letters, digits, ".", "_" and "-" (at most 63)');
  }
  // `pctl config set prod --api-url URL` reads like the rest of pctl: the global flag names the value.
  if (key === undefined) {
    if (!ctx.globals.apiUrl) throw new UsageError('nothing to set: pctl config set NAME api-url URL, pctl config set NAME --api-url URL, or pctl config set NAME token < token-file');
    key = 'api-url';
    value = ctx.globals.apiUrl;
  }
  const field = profileKey(key);
  const store = await ctx.config();
  const existing = store.profile(name!);

  if (field === 'apiUrl') {
    if (value === undefined || value === '') throw UsageError.invalidField('api-url', 'is required: pctl config set NAME api-url URL');
    checkApiUrl(value);
    store.setProfile(name!, { ...existing, apiUrl: value.replace(/\/+$/, '') });
  } else {
    if (value !== undefined && value !== '-') {
      throw new UsageError('pass the token on stdin, not as an argument (arguments leak into shell history): pctl config set NAME token < token-file');
    }
    if (!existing) throw new UsageError(`profile "${name}" has no API URL yet: run pctl config set ${name} api-url URL first`);
    const token = await ctx.prompter.readSecret('Token');
    if (!token) throw UsageError.invalidField('token', 'is empty: nothing was read from stdin');
    store.setProfile(name!, { ...existing, token });
  }

  const current = store.currentProfileName();
  if (!current || !store.profile(current)) store.useProfile(name!);
  if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`Saved profile "${name}"${store.currentProfileName() === name ? ' (current)' : ''}\n`);
  return 0;
}
