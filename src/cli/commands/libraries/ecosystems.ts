// --ecosystem java|python (repeatable, any case) → the API's values; both when none is given.
import { ECOSYSTEMS } from '../../../api/schemas.js';
import { UsageError } from '../../errors.js';

export function ecosystems(values: readonly string[] | undefined): string[] {
  if (!values?.length) return [...ECOSYSTEMS];
  return values.map((v) => {
    const upper = v.trim().toUpperCase();
    if (!(ECOSYSTEMS as readonly string[]).includes(upper)) throw UsageError.invalidField('ecosystems', `${JSON.stringify(v)} is not an ecosystem (java, python)`);
    return upper;
  });
}
