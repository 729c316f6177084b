import { z } from "zod";

/** A `{{param}}` standing for the whole value. */
const PARAM_REF = String.raw`\{\{\s*[a-zA-Z][a-zA-Z0-9_]*\s*\}\}`;

/** A day: yyyy-mm-dd, `today`, `yesterday`, `today-N` (UTC), or a `{{param}}` giving one. */
const dateRef = z
  .string()
  .regex(new RegExp(`^(\\d{4}-\\d{2}-\\d{2}|(today|yesterday)([+-]\\d{1,4})?|${PARAM_REF})$`), {
    message: "must be a date (yyyy-mm-dd), today, yesterday, today-N, or a {{param}} giving one",
  });

/** The length of one window: N days, N weeks, N calendar months, `range` (one window), or a `{{param}}` giving one. */
export const WINDOW_STEP = /^([1-9]\d{0,3}(d|w|mo)|range)$/;

const step = z.string().regex(new RegExp(`^(${WINDOW_STEP.source.slice(1, -1)}|${PARAM_REF})$`), {
  message: 'must be a window length such as "1d", "7d", "2w", "1mo", "range" (one window), or a {{param}}',
});

const lookback = z.union([
  z.literal(0),
  z.string().regex(/^\d{1,4}d$/, { message: 'must be a number of days such as "3d" (or 0)' }),
]);

/**
 * Date windows: the range `start`..`end` (days, both included) cut into windows of `step`; request
 * templates read `{{window.start}}`, `{{window.end}}` (yyyy-mm-dd) and `{{window.start:yyyymmdd}}`,
 * `{{window.end:yyyymmdd}}`. A window whose calls all loaded is recorded and not asked again, except
 * those within `lookback` of the range's end, asked again when the range has moved on since.
 */
export const windowSchema = z.strictObject({
  /** First day of the range. */
  start: dateRef,
  /** Last day of the range (included). */
  end: dateRef.default("yesterday"),
  /** One window's length: `1d` (a window per day), `7d`, `1mo` (calendar months), `range` (one window). */
  step: step.default("1d"),
  /** The windows within this many days of the range's end are asked again once the range has moved on. */
  lookback: lookback.default(0),
});

export type WindowSpec = z.infer<typeof windowSchema>;
