// --capability flags: repeatable or comma-separated, checked against the known names before
// any request (the server would refuse them with the same wording).
import { CAPABILITIES } from '../../api/capabilities.js';
import { UsageError } from '../errors.js';

export function parseCapabilities(values: string[] | undefined): string[] {
  const names = [...new Set((values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean))];
  const known = new Set<string>(CAPABILITIES);
  const violations = names
    .map((name, i) => ({ name, i }))
    .filter(({ name }) => !known.has(name))
    .map(({ name, i }) => ({ field: `capabilities[${i}]`, description: `${JSON.stringify(name)} is not a known capability` }));
  if (violations.length) {
    const first = violations[0]!;
    throw new UsageError(`Invalid argument: ${first.field}: ${first.description} (known: ${CAPABILITIES.join(', ')})`, violations);
  }
  return names;
}
