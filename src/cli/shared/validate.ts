// Client-side checks of what the spec fixes, made before any request (exit 2) and worded
// exactly as the server words them, so the user sees one message either way.
import { GROUP_NAME_RE, GROUP_NAME_RULE } from '../../api/schemas.js';
import { UsageError } from '../errors.js';

export function checkGroupName(name: string): void {
  if (!GROUP_NAME_RE.test(name)) throw UsageError.invalidField('name', GROUP_NAME_RULE);
}

export function checkNotEmpty(field: string, value: string | undefined): void {
  if (value !== undefined && value.trim() === '') throw UsageError.invalidField(field, 'is required');
}

/** An update with no field flags would be a no-op PATCH: say so instead. */
export function checkSomethingToUpdate(mask: readonly string[], flags: readonly string[]): void {
  if (!mask.length) throw new UsageError(`nothing to update: pass at least one of ${flags.join(', ')}`);
}

/** The issuer is the URL of the token issuer (spec: Identity.claimMatch); same wording as the server. */
export function checkIssuer(issuer: string | undefined): void {
  if (issuer === undefined) return;
  if (!URL.canParse(issuer)) throw UsageError.invalidField('claimMatch.issuer', 'must be an absolute URL (the token issuer)');
}
