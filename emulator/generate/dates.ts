import type { Rng } from "../random.js";

const DAY_MS = 86_400_000;

/** A UTC day number (days since 1970-01-01) in [from, to] years. */
export function randomDay(rng: Rng, fromYear: number, toYear: number): number {
  const from = Date.UTC(fromYear, 0, 1) / DAY_MS;
  const to = Date.UTC(toYear, 11, 31) / DAY_MS;
  return rng.int(from, to);
}

/** `yyyy-mm-dd` of a day number. */
export function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** yyyymmdd as an integer (20210304), the form bibliographic data uses. */
export function ymdInt(day: number): number {
  return Number(isoDay(day).replaceAll("-", ""));
}

/** Day number of a `yyyy-mm-dd` string. */
export function dayOf(iso: string): number {
  return Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);
}
