// serve --deterministic SEED: a clock that starts at a fixed instant and moves one step per
// request, and a seeded random source, so that two fresh data dirs sent the same requests
// answer with the same bytes (tokens aside: ES256 signatures are randomized by design).
import { SeededRandom } from '../base/random.js';

/** Where the clock of a deterministic serve starts. */
export const DETERMINISTIC_START_MS = Date.UTC(2026, 0, 1);
/** How far each request moves it: a second, so that timestamps read plainly. */
export const DETERMINISTIC_STEP_MS = 1000;

export class Determinism {
  readonly random: SeededRandom;
  private ms = DETERMINISTIC_START_MS;
  private mark: { ms: number; random: ReturnType<SeededRandom['position']> } | undefined;

  constructor(seed: number) {
    this.random = new SeededRandom(seed);
  }

  /** The clock: it stands still between requests. */
  readonly clock = (): number => this.ms;

  /** A request has arrived: the clock moves one step (before anything of the request reads it). */
  tick(): void {
    this.ms += DETERMINISTIC_STEP_MS;
  }

  /** Remembers where clock and random stream stand once serve has started. */
  markStarted(): void {
    this.mark = { ms: this.ms, random: this.random.position() };
  }

  /** Back to where they stood once serve had started (a live reset: the next requests get what they got then). */
  rewindToStart(): void {
    if (!this.mark) return;
    this.ms = this.mark.ms;
    this.random.rewind(this.mark.random);
  }
}
