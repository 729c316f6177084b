/**
 * What is known about one account's rate limit, and the three ways it changes: answers succeed
 * (the pace grows), the API refuses a call (the pace drops), a call takes its send slot. The same
 * functions run on the row in memory and on the row every process shares in the warehouse.
 */
export interface RateRow {
  /** Calls per second the account is paced at; null while no limit has been met or declared (unpaced). */
  rate: number | null;
  /** A limit the user declared (`--rate`): the pace starts there and never goes above. */
  declared: number | null;
  /** The next free send slot (ms since the epoch). */
  nextAt: number;
  /** When the pace last dropped: refusals of calls sent before it belong to that round. */
  decreasedAt: number;
  /** When the pace last grew. */
  grownAt: number;
  /** The pace the last refusal came at (before it dropped; the first: what got through): null before any. */
  ceiling: number | null;
  /** Successes counted since `okSince` (the last drop of the pace, or the first call). */
  okSince: number;
  okCount: number;
}

/** The slowest pace: one call every 5 s still probes whether the limit has lifted. */
export const MIN_RATE = 0.2;
/** A refusal sets the pace to this share of what succeeded since the last one (or of the pace). */
const DECREASE = 0.9;
/** Fewer milliseconds of successes than this say too little to measure a rate by. */
const MEASURE_MS = 250;
/** Growth per second without a refusal near the ceiling: 1 % of the pace, at least a quarter call per second. */
const growthPerSecond = (rate: number) => Math.max(0.25, rate * 0.01);
/** "Near the ceiling" starts at this share of it. */
const NEAR = 0.85;
/** Well below the ceiling (or with none known yet), the pace grows a quarter per second. */
const RECOVERY_PER_SECOND = 1.25;

export function newRateRow(declared: number | null, now: number): RateRow {
  return {
    rate: declared,
    declared,
    nextAt: now,
    decreasedAt: 0,
    grownAt: now,
    ceiling: null,
    okSince: now,
    okCount: 0,
  };
}

/** Adds successes seen since the last change and lets the pace grow for the time gone by. */
export function withSuccesses(row: RateRow, successes: number, now: number): RateRow {
  const r = { ...row };
  r.okCount += successes;
  if (r.rate !== null) {
    const seconds = Math.max(0, now - r.grownAt) / 1000;
    const near = r.ceiling === null ? Number.POSITIVE_INFINITY : r.ceiling * NEAR;
    // Back quickly to just under where refusals began, then probe past it slowly.
    const grown =
      r.rate < near
        ? Math.min(near, r.rate * RECOVERY_PER_SECOND ** seconds)
        : r.rate + growthPerSecond(r.rate) * seconds;
    r.rate = r.declared === null ? grown : Math.min(r.declared, grown);
  }
  r.grownAt = now;
  return r;
}

/**
 * A 429 for a call sent at `sentAt`, whose Retry-After was `windowMs`. The first one sets the pace
 * from what got through before it, spread over that window (or over the time it took, if longer):
 * a limit of N per window lets N through at once, then refuses. When no answer has come back yet
 * (a limit refuses at once, before the calls it let through are answered), `unrefused` stands in:
 * this process's calls sent in the last window that were not refused. From then on the pace drops
 * to 90 % of what succeeded since the last drop, or of the pace. Refusals of calls sent before the
 * last drop were answered by it (a decrease once per round, as TCP does per window).
 */
export function withRefusal(
  row: RateRow,
  sentAt: number,
  now: number,
  unrefused: number,
  windowMs = 1000,
): RateRow {
  if (sentAt < row.decreasedAt) return row;
  const span = now - row.okSince;
  // The pace the refusal came at; for the first, what got through: the limit itself, measured.
  let before: number;
  if (row.rate === null) {
    const through = row.okCount > 0 ? row.okCount : unrefused;
    before = (through * 1000) / Math.max(windowMs, span, 1);
  } else {
    const measured = span >= MEASURE_MS && row.okCount > 0 ? (row.okCount * 1000) / span : null;
    before = Math.min(row.rate, measured ?? row.rate);
  }
  const rate = Math.max(MIN_RATE, before * DECREASE);
  return {
    ...row,
    rate: row.declared === null ? rate : Math.min(row.declared, rate),
    decreasedAt: now,
    grownAt: now,
    // Known after the first round too: growing back a quarter per second from there would only
    // meet the limit again within a second (a second round of refusals for nothing).
    ceiling: row.rate ?? (before > 0 ? before : null),
    // What succeeds from here on is what the limit lets through at the new pace.
    okSince: now,
    okCount: 0,
  };
}

/** Takes the next send slot at the row's pace: when this call may go. */
export function withSlot(row: RateRow, now: number): { row: RateRow; at: number } {
  if (row.rate === null) return { row, at: now };
  const at = Math.max(row.nextAt, now);
  return { row: { ...row, nextAt: at + 1000 / row.rate }, at };
}

/** The row under a process's declaration: a declared limit caps the pace (and starts it). */
export function underDeclared(row: RateRow, declared: number | null): RateRow {
  if (declared === null) return { ...row, declared: null };
  return { ...row, declared, rate: Math.min(row.rate ?? declared, declared) };
}
