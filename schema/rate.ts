/** Calls per second, minute or hour: how a rate limit is written (`--rate 20/s`, `rateLimit: 600/m`). */
const PER_SECONDS = { s: 1, m: 60, h: 3600 } as const;

/**
 * Reads a rate limit as calls per second, or undefined when it is not one (or not above 0).
 *
 * @example parseRate("600/m") // 10
 */
export function parseRate(text: string | number): number | undefined {
  if (typeof text === "number") return Number.isFinite(text) && text > 0 ? text : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(s|m|h))?\s*$/.exec(text);
  const rate = m ? Number(m[1]) / PER_SECONDS[(m[2] ?? "s") as keyof typeof PER_SECONDS] : Number.NaN;
  return rate > 0 ? rate : undefined;
}
