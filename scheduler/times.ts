import cron, { type ScheduledTask } from "node-cron";

/** A stopped node-cron task, used only to ask when an expression matches (it never fires). */
export function cronMatcher(expr: string, timezone: string): ScheduledTask {
  return cron.createTask(expr, () => undefined, { timezone });
}

/**
 * The next `count` instants an expression matches after now.
 *
 * @example nextTimes("0 6 * * *", "Europe/Berlin", 3) // three Dates, 06:00 Berlin time each
 */
export function nextTimes(expr: string, timezone: string, count: number): Date[] {
  const task = cronMatcher(expr, timezone);
  try {
    return task.getNextRuns(count);
  } finally {
    void task.destroy();
  }
}

export interface PastTicks {
  /** The latest matching instant in the window, if any. */
  latest: Date | undefined;
  /** How many instants matched in the window (counted up to the look-back limit). */
  count: number;
  /** True when the window reached further back than the look-back limit (older ticks not counted). */
  truncated: boolean;
}

const MINUTE = 60_000;
/** How far back a start looks for missed ticks: enough for monthly schedules, cheap for any. */
export const LOOKBACK_MS = 62 * 24 * 60 * MINUTE;

/**
 * The ticks of an expression in the window (after, before]: what a scheduler missed while it was
 * down. node-cron only looks forward, so this walks back minute by minute (fields are ANDed: a
 * minute matches for one listed second iff it matches for all) and then picks the seconds.
 *
 * @example pastTicks("0 6 * * *", "UTC", new Date("2025-01-01T00:00:00Z"), new Date("2025-01-03T12:00:00Z"))
 * // { latest: 2025-01-03T06:00:00Z, count: 3, truncated: false }
 */
export function pastTicks(expr: string, timezone: string, after: Date, before: Date): PastTicks {
  const seconds = [...cron.parse(expr).second].sort((a, b) => b - a);
  const probe = seconds[seconds.length - 1] ?? 0;
  const task = cronMatcher(expr, timezone);
  const floor = Math.max(after.getTime(), before.getTime() - LOOKBACK_MS);
  let latest: Date | undefined;
  let count = 0;
  try {
    for (let minute = Math.floor(before.getTime() / MINUTE) * MINUTE; minute + 59_999 > floor; ) {
      if (task.match(new Date(minute + probe * 1000))) {
        for (const s of seconds) {
          const t = minute + s * 1000;
          if (t > floor && t <= before.getTime()) {
            latest ??= new Date(t);
            count++;
          }
        }
      }
      minute -= MINUTE;
    }
  } finally {
    void task.destroy();
  }
  return { latest, count, truncated: floor > after.getTime() };
}

/**
 * The calendar date of an instant in a time zone, as a UTC midnight Date: what `resolveDate`
 * takes as "now", so `yesterday` means yesterday where the schedule runs.
 */
export function zonedToday(at: Date, timezone: string): Date {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone: timezone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(at);
  return new Date(`${parts}T00:00:00.000Z`);
}

/** `2025-01-03 06:00:00` in the given zone (for `--list` and logs). */
export function formatInZone(at: Date, timezone: string): string {
  return new Intl.DateTimeFormat("sv-SE", {
    timeZone: timezone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).format(at);
}
