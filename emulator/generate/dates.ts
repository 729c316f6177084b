import type { Rng } from "../random.js";

const DAY_MS = 86_400_000;

/** A UTC day number (days since 1970-01-01) in [from, to] years. */
export function randomDay(rng: Rng, fromYear: number, toYear: number): number {
  const from = Date.UTC(fromYear, 0, 1) / DAY_MS;
  const to = Date.UTC(toYear, 11, 31) / DAY_MS;
  return rng.int(from, to);
}

/** Year, month, day of a day number (Hinnant's civil_from_days: no Date object, it runs per generated row). */
function civil(day: number): [number, number, number] {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** `yyyy-mm-dd` of a day number. */
export function isoDay(day: number): string {
  const [y, m, d] = civil(day);
  return `${y < 1000 ? String(y).padStart(4, "0") : y}-${m < 10 ? "0" : ""}${m}-${d < 10 ? "0" : ""}${d}`;
}

/** yyyymmdd as an integer (20210304), the form bibliographic data uses. */
export function ymdInt(day: number): number {
  const [y, m, d] = civil(day);
  return y * 10000 + m * 100 + d;
}

/** Day number of a `yyyy-mm-dd` string. */
export function dayOf(iso: string): number {
  return Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);
}
