// Types of scripts/buf.mjs, for the TypeScript tests and helpers that import it.

/** Copies proto/ into `out`/proto with the vendor's bare imports spelled from proto/ (and buf.yaml into `out`). */
export function stageProto(out: string, from?: string): void;
