import cron from "node-cron";
import { cronMatcher, crontabParts } from "./crontab.js";

export { cronMatcher } from "./crontab.js";

/**
 * The next `count` instants an expression matches after now (as crontab means it: crontab.ts).
 *
 * @example nextTimes("0 6 * * *", "Europe/Berlin", 3) // three Dates, 06:00 Berlin time each
 */
export function nextTimes(expr: string, timezone: string, count: number): Date[] {
  const byTime = new Map<number, Date>();
  for (const part of crontabParts(expr)) {
    const task = cron.createTask(part, () => undefined, { timezone });
    try {
      for (const d of task.getNextRuns(count)) byTime.set(d.getTime(), d);
    } finally {
      void task.destroy();
    }
  }
  return [...byTime.values()].sort((a, b) => a.getTime() - b.getTime()).slice(0, count);
}

export interface PastTicks {
  /** The latest matching instant in the window, if any. */
  latest: Date | undefined;
  /** How many instants matched (at most COUNT_CAP, within the look-back limit). */
  count: number;
  /** True when there may be more than `count`: the window reached past the look-back or the cap. */
  more: boolean;
}

const MINUTE = 60_000;
/** How far back a start looks for missed ticks: enough for monthly schedules. */
export const LOOKBACK_MS = 62 * 24 * 60 * MINUTE;
/** Counting stops here (a per-second schedule down for a day need not be counted one by one). */
export const COUNT_CAP = 1000;

// The wall clock of an instant in a zone: date, month, hour and minute, with one cached formatter.
function wallClock(
  timezone: string,
): (ms: number) => { date: string; month: number; hour: number; minute: number } {
  const fmt = new Intl.DateTimeFormat("en-US", {
    timeZone: timezone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
  });
  return (ms) => {
    const p: Record<string, string> = {};
    for (const part of fmt.formatToParts(ms)) p[part.type] = part.value;
    return {
      date: `${p["year"]}-${p["month"]}-${p["day"]}`,
      month: Number(p["month"]),
      hour: Number(p["hour"]),
      minute: Number(p["minute"]),
    };
  };
}

/**
 * The ticks of an expression in the window (after, before]: what a scheduler missed while it was
 * down. node-cron only looks forward, so this walks back over the wall clock of the zone: hours
 * and minutes the expression does not list are skipped cheaply, the matcher decides the rest
 * (only the day fields differ between crontab's parts, so when it refuses a minute whose month,
 * hour and minute are listed, the day itself is out and the walk skips it).
 *
 * @example pastTicks("0 6 * * *", "UTC", new Date("2025-01-01T00:00:00Z"), new Date("2025-01-03T12:00:00Z"))
 * // { latest: 2025-01-03T06:00:00Z, count: 3, more: false }
 */
export function pastTicks(expr: string, timezone: string, after: Date, before: Date): PastTicks {
  const f = cron.parse(expr);
  const seconds = [...f.second].sort((a, b) => b - a);
  const minutes = [...f.minute].sort((a, b) => a - b);
  const hours = new Set(f.hour);
  const months = new Set(f.month);
  const probe = seconds[seconds.length - 1] ?? 0;
  const clock = wallClock(timezone);
  const task = cronMatcher(expr, timezone);
  const floor = Math.max(after.getTime(), before.getTime() - LOOKBACK_MS);
  let latest: Date | undefined;
  let count = 0;
  let refusedDay = "";
  try {
    let t = Math.floor(before.getTime() / MINUTE) * MINUTE;
    while (t + 59_999 > floor && count < COUNT_CAP) {
      const c = clock(t);
      if (c.date === refusedDay || !months.has(c.month) || !hours.has(c.hour)) {
        t -= (c.minute + 1) * MINUTE;
        continue;
      }
      if (!minutes.includes(c.minute)) {
        const prev = minutes.filter((m) => m < c.minute).pop();
        t -= (prev === undefined ? c.minute + 1 : c.minute - prev) * MINUTE;
        continue;
      }
      if (!task.match(new Date(t + probe * 1000))) {
        refusedDay = c.date;
        t -= (c.minute + 1) * MINUTE;
        continue;
      }
      for (const s of seconds) {
        const at = t + s * 1000;
        if (at > floor && at <= before.getTime() && count < COUNT_CAP) {
          latest ??= new Date(at);
          count++;
        }
      }
      t -= MINUTE;
    }
  } finally {
    task.destroy();
  }
  return { latest, count, more: floor > after.getTime() || count >= COUNT_CAP };
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
