// Where serve's uids and codes get their randomness: the system's CSPRNG, or (serve
// --deterministic SEED) a stream that is a function of the seed alone, so that the same
// requests get the same uids. Passed down from ServeOptions, never reached for globally.
import { createHash, randomBytes, randomInt } from 'node:crypto';

export interface Random {
  /** n random bytes. */
  bytes(n: number): Buffer;
  /** A whole number from 0 to max - 1. */
  int(max: number): number;
}

/** Bytes of the CSPRNG drawn at once: one call into it serves hundreds of uids (each call costs ~5 µs). */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let drawn = 0;

export const systemRandom: Random = {
  bytes(n) {
    if (n > POOL_SIZE / 8) return randomBytes(n);
    if (drawn + n > pool.length) {
      pool = randomBytes(POOL_SIZE);
      drawn = 0;
    }
    // A copy: the caller's bytes are its own, and no byte is handed out twice.
    const out = Buffer.from(pool.subarray(drawn, drawn + n));
    drawn += n;
    return out;
  },
  int: (max) => randomInt(max),
};

/**
 * SHA-256 in counter mode over the seed: block i is sha256("pctl deterministic <seed>" ‖ i).
 * Predictable by design (anyone who knows the seed knows every code): for tests, never for a
 * server others can reach.
 */
export class SeededRandom implements Random {
  private block = 0;
  private pool = Buffer.alloc(0);

  constructor(private readonly seed: number) {}

  bytes(n: number): Buffer {
    while (this.pool.length < n) {
      const counter = Buffer.alloc(8);
      counter.writeBigUInt64BE(BigInt(this.block++));
      const next = createHash('sha256').update(`pctl deterministic ${this.seed}`).update(counter).digest();
      this.pool = Buffer.concat([this.pool, next]);
    }
    const out = this.pool.subarray(0, n);
    this.pool = this.pool.subarray(n);
    return Buffer.from(out);
  }

  int(max: number): number {
    // Rejection sampling: values past the last whole multiple of max would favour small results.
    const limit = Math.floor(0x1_0000_0000 / max) * max;
    for (;;) {
      const v = this.bytes(4).readUInt32BE();
      if (v < limit) return v % max;
    }
  }

  /** Where the stream stands, to come back to with rewind(). */
  position(): { block: number; pool: Buffer } {
    return { block: this.block, pool: Buffer.from(this.pool) };
  }

  rewind(to: { block: number; pool: Buffer }): void {
    this.block = to.block;
    this.pool = Buffer.from(to.pool);
  }
}

/**
 * mulberry32: a small, fast, seedable generator of [0, 1); the same seed, the same draws.
 * For reproducible choices (the demo data set, fault probabilities), never for secrets.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
