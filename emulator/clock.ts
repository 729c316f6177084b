import { z } from "zod";
import { fromZodIssues, ValidationError } from "../core/errors.js";
import { dayOf, isoDay } from "./generate/dates.js";

/**
 * The emulated date. Answers are a function of the request and this date (never of the wall
 * clock), so tests stay deterministic: the library's default is a fixed day; only the
 * `skillsync emulator` command starts at today's date.
 */
export const DEFAULT_EMULATOR_DATE = "2026-11-01";
export const DEFAULT_EMULATOR_DAY = dayOf(DEFAULT_EMULATOR_DATE);

// The synthetic patents and products are dated from 2010 to the 2020s; far outside, the data stops meaning anything.
const FIRST = "2000-01-01";
const LAST = "2099-12-31";
export const DATE_RULE = `must be a calendar date yyyy-mm-dd between ${FIRST} and ${LAST}`;

/** A real calendar date (no 2026-02-30) in the emulated range. */
export function isEmulatorDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const day = dayOf(value);
  return Number.isFinite(day) && isoDay(day) === value && value >= FIRST && value <= LAST;
}

export const emulatorDateSchema = z.string().refine(isEmulatorDate, { message: DATE_RULE });
const ADVANCE_RULE = 'must be a number of days or weeks, like "7d", "2w" or "-3d"';
const clockBodySchema = z
  .strictObject({
    date: emulatorDateSchema.optional(),
    advance: z
      .string()
      .regex(/^[+-]?\d{1,5}[dw]$/, { message: ADVANCE_RULE })
      .optional(),
  })
  .refine((body) => (body.date === undefined) !== (body.advance === undefined), {
    message: 'give either "date" (yyyy-mm-dd) or "advance" (like "7d"), exactly one',
  });

/** Where `POST /__emulator/clock` moves the clock: to a date, or by a number of days. */
type ClockMove = { date: string } | { days: number };

/** Day number of an emulated date; throws ValidationError naming `source` when it is not one. */
export function emulatorDay(date: string, source = "emulator date"): number {
  const parsed = emulatorDateSchema.safeParse(date);
  if (!parsed.success) throw new ValidationError(source, fromZodIssues(parsed.error.issues));
  return dayOf(parsed.data);
}

/**
 * Validates the body of `POST /__emulator/clock`: `{ "date": "yyyy-mm-dd" }` or `{ "advance": "7d" }`
 * (days or weeks from the emulated date: a shell needs no `date -d`, which BSD's date lacks).
 */
export function parseClockBody(input: unknown): ClockMove {
  const parsed = clockBodySchema.safeParse(input);
  if (!parsed.success) throw new ValidationError("emulator clock", fromZodIssues(parsed.error.issues));
  const { date, advance } = parsed.data;
  if (date !== undefined) return { date };
  const count = Number.parseInt(advance ?? "0", 10);
  return { days: advance?.endsWith("w") ? count * 7 : count };
}

/** The date one emulator answers at; calls read it when they are processed. */
export class EmulatorClock {
  private current: number;

  constructor(date: string) {
    this.current = emulatorDay(date);
  }

  day(): number {
    return this.current;
  }

  date(): string {
    return isoDay(this.current);
  }

  /** Moves the clock (either way); returns the new date. */
  set(date: string): string {
    this.current = emulatorDay(date, "emulator clock");
    return this.date();
  }

  /** Moves the clock to a date or by a number of days; a move out of the emulated range is refused. */
  move(to: ClockMove): string {
    if ("date" in to) return this.set(to.date);
    const next = isoDay(this.current + to.days);
    if (!isEmulatorDate(next))
      throw new ValidationError("emulator clock", [
        { path: ["advance"], message: `would move the clock to ${next}, outside ${FIRST} to ${LAST}` },
      ]);
    return this.set(next);
  }
}
