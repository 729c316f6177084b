/** The browser's preferred languages, most wanted first (Intl falls back along the list). */
export function browserLocales(): string[] {
  const languages = navigator.languages?.length ? navigator.languages : [navigator.language];
  return [...languages];
}

/** Numbers as the page shows them: the reader's locale, at most two decimals (credits may have cents). */
export const numberFormat = (): Intl.NumberFormat =>
  new Intl.NumberFormat(browserLocales(), { maximumFractionDigits: 2 });

/**
 * A chart's x values are whole UTC days when every one falls on midnight UTC (per-day bars): such a
 * day is shown in UTC, or a reader west of Greenwich would see each bar under the day before.
 */
export const isDaySeries = (x: readonly number[]): boolean =>
  x.length > 0 && x.every((t) => t % 86_400 === 0);

/** A chart's day, time of day, and moment (both) in the reader's locale. */
export interface DateFormats {
  day: Intl.DateTimeFormat;
  clock: Intl.DateTimeFormat;
  moment: Intl.DateTimeFormat;
}

export function dateFormats(utcDays: boolean): DateFormats {
  const zone: Intl.DateTimeFormatOptions = utcDays ? { timeZone: "UTC" } : {};
  const locales = browserLocales();
  return {
    day: new Intl.DateTimeFormat(locales, { ...zone, month: "short", day: "numeric" }),
    clock: new Intl.DateTimeFormat(locales, { ...zone, timeStyle: "short" }),
    moment: new Intl.DateTimeFormat(locales, { ...zone, dateStyle: "medium", timeStyle: "short" }),
  };
}
