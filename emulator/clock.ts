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
const clockBodySchema = z.strictObject({ date: emulatorDateSchema });

/** Day number of an emulated date; throws ValidationError naming `source` when it is not one. */
export function emulatorDay(date: string, source = "emulator date"): number {
  const parsed = emulatorDateSchema.safeParse(date);
  if (!parsed.success) throw new ValidationError(source, fromZodIssues(parsed.error.issues));
  return dayOf(parsed.data);
}

/** Validates the body of `POST /__emulator/clock`: exactly `{ "date": "yyyy-mm-dd" }`. */
export function parseClockBody(input: unknown): string {
  const parsed = clockBodySchema.safeParse(input);
  if (!parsed.success) throw new ValidationError("emulator clock", fromZodIssues(parsed.error.issues));
  return parsed.data.date;
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
}
