// The client secret: from a prompt on a terminal, else from stdin; never from argv.
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export async function readClientSecret(ctx: Context): Promise<string> {
  const secret = (await ctx.prompter.readSecret('Client secret')).trim();
  if (!secret) throw UsageError.invalidField('oidc.clientSecret', 'is empty: nothing was read (type it at the prompt, or pipe it to stdin)');
  return secret;
}
