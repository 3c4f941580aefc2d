// Times for humans ("3 minutes ago") on a TTY; scripts get the RFC 3339 string untouched.

const UNITS: [unit: string, ms: number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** `2026-01-01T00:00:00Z` relative to now: "just now", "3 minutes ago", "in 2 days". */
export function relativeTime(iso: string, now: Date): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const diff = now.getTime() - then;
  const abs = Math.abs(diff);
  if (abs < 10_000) return 'just now';
  for (const [unit, ms] of UNITS) {
    if (abs >= ms) {
      const n = Math.floor(abs / ms);
      const phrase = n === 1 ? `${unit === 'hour' ? 'an' : 'a'} ${unit}` : `${n} ${unit}s`;
      return diff >= 0 ? `${phrase} ago` : `in ${phrase}`;
    }
  }
  return 'just now';
}
