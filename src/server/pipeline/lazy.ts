// What only some callers use is imported on its first call, not at start (gRPC with Connect,
// protobuf and the generated descriptors; the v1 calls): a serve that answers REST alone
// never pays for it, and every test and `pctl serve` starts that much sooner.
import { ApiError, Code } from '../../api/errors.js';

/**
 * `load` run on the first call; the calls until it settles share its promise, and the calls
 * after it get the value itself (no promise to await on a hot path). A failure is logged and
 * thrown as an UNAVAILABLE (503) for the callers that waited; the next call tries again.
 */
export function onFirstUse<T>(what: string, load: () => Promise<T>, log?: (line: string) => void): () => T | Promise<T> {
  let loaded: T | undefined;
  let loading: Promise<T> | undefined;
  return () => loaded ?? (loading ??= load().then(
    (value) => (loaded = value),
    (err: unknown) => {
      loading = undefined;
      (log ?? ((line: string) => process.stderr.write(`${line}\n`)))(`${what} failed to load: ${(err as Error)?.stack ?? String(err)}`);
      throw new ApiError(Code.UNAVAILABLE, `${what} is unavailable: serve could not load it (its log says why); try again`, { reason: 'SURFACE_NOT_LOADED' });
    },
  ));
}
