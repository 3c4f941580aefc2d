// An update's body and updateMask, built from exactly the flags given: a flag left out is
// neither sent nor named in the mask; `--description ""` is sent (and clears the field).
export class FieldMask {
  readonly fields: Record<string, unknown> = {};
  readonly mask: string[] = [];

  /** Adds `path` (dotted for nested fields: `claimMatch.issuer`) when value is defined. */
  set(path: string, value: unknown): this {
    if (value === undefined) return this;
    const parts = path.split('.');
    let target = this.fields;
    for (const part of parts.slice(0, -1)) target = (target[part] ??= {}) as Record<string, unknown>;
    target[parts[parts.length - 1]!] = value;
    this.mask.push(path);
    return this;
  }
}
