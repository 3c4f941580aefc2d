// --ecosystem java|python (repeatable, any case) → the API's values; both when none is given.
import { ECOSYSTEMS, ecosystemOf, ecosystemRule } from '../../../api/schemas.js';
import { UsageError } from '../../errors.js';

export function ecosystems(values: readonly string[] | undefined): string[] {
  if (!values?.length) return [...ECOSYSTEMS];
  return values.map((v) => {
    const ecosystem = ecosystemOf(v);
    if (!ecosystem) throw UsageError.invalidField('ecosystems', ecosystemRule(v));
    return ecosystem;
  });
}
