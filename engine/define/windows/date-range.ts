import { type Issue, ValidationError } from "../../../core/errors.js";
import type { PipelineFile } from "../../../schema/pipeline.js";
import { WINDOW_STEP, type WindowSpec } from "../../../schema/window.js";
import { type ParamValue, type ParamValues, resolveDate } from "../params.js";

// Date windows live in two folders, by engine stage: here what a window is (the range cut by
// `step`, its identity and state: window-state.ts, what a file gets wrong: window-issues.ts), and in
// engine/run/windows/ how a run asks them (calls per window, which to ask, recording them done).
// The `window:` block's schema is schema/window.ts; the windows done, store/windows-done.ts.

/** One date window: its first and last day (yyyy-mm-dd, both included) and its identity. */
export interface DateWindow {
  start: string;
  end: string;
  /** The window's identity (see `windowKeys`); empty until keyed. */
  key: string;
}

/** The names request templates read in a pipeline with a `window:` block. */
export const WINDOW_VARS = ["window.start", "window.end", "window.start:yyyymmdd", "window.end:yyyymmdd"];

/** Whether a template name means a window value (`window.start`…), known or not. */
export const isWindowName = (name: string): boolean => name === "window" || name.startsWith("window.");

/** More windows than this in one range is a mistake (27 years of days), refused before anything is sent. */
export const MAX_WINDOWS = 10_000;

/** The values of `{{window.start}}`, `{{window.end}}` and their `:yyyymmdd` forms for one window. */
export function windowVars(w: Pick<DateWindow, "start" | "end">): Record<string, string> {
  return {
    "window.start": w.start,
    "window.end": w.end,
    "window.start:yyyymmdd": w.start.replaceAll("-", ""),
    "window.end:yyyymmdd": w.end.replaceAll("-", ""),
  };
}

/** A day `n` days after `day` (before, for negative `n`). */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** The last day of the calendar month `n - 1` months after the month of `day`. */
function monthEnd(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 0)).toISOString().slice(0, 10);
}

/** A pipeline's windows as one run sees them: the range, its windows, and the lookback. */
export interface WindowRange {
  start: string;
  end: string;
  step: string;
  lookbackDays: number;
  windows: DateWindow[];
}

/** A window member that is a whole `{{param}}`: the param gives its value. */
export const PARAM = /^\{\{\s*([a-zA-Z][a-zA-Z0-9_]*)\s*\}\}$/;

function lookbackDays(spec: WindowSpec): number {
  return spec.lookback === 0 ? 0 : Number.parseInt(spec.lookback, 10);
}

/**
 * The range and its windows for these params: `start`..`end` (both included) cut into windows of
 * `step` — `Nd` and `Nw` from `start`, `Nmo` along calendar months, `range` one window — the last
 * one cut at `end`. A wrong value (a date that is none, start after end, an unknown step) is a
 * ValidationError naming the member and the param: nothing is sent.
 *
 * @example resolveWindows(p, { start: "2025-01-30", end: "2025-02-02" }).windows.map((w) => w.start)
 * // ["2025-01-30", "2025-01-31", "2025-02-01", "2025-02-02"] (with step: 1d)
 */
export function resolveWindows(
  p: PipelineFile & { file: string },
  params: ParamValues,
  now = new Date(),
): WindowRange {
  const spec = p.window;
  if (!spec) throw new Error(`pipeline ${p.name} has no window block`);
  const issues: Issue[] = [];
  const read = (member: "start" | "end" | "step"): string | undefined => {
    const text = spec[member];
    const ref = PARAM.exec(text)?.[1];
    const given: ParamValue | ParamValue[] | undefined = ref ? params[ref] : text;
    const from = ref ? ` (from param ${ref})` : "";
    if (given === undefined || Array.isArray(given)) {
      issues.push({
        path: ["window", member],
        message: `${text} needs one value${ref ? ` (give --param ${ref}=…)` : ""}`,
      });
      return undefined;
    }
    const value = String(given).trim();
    if (member === "step") {
      if (WINDOW_STEP.test(value)) return value;
      issues.push({
        path: ["window", member],
        message: `"${value.slice(0, 40)}"${from} is not a window length: use Nd, Nw, Nmo (such as 1d, 7d, 1mo) or range`,
      });
      return undefined;
    }
    const day = resolveDate(value, now);
    if (!day)
      issues.push({
        path: ["window", member],
        message: `"${value.slice(0, 40)}"${from} is not a date (yyyy-mm-dd, today, yesterday, today-N)`,
      });
    return day;
  };
  const start = read("start");
  const end = read("end");
  const step = read("step");
  if (start && end && start > end) {
    issues.push({ path: ["window", "start"], message: `the range starts ${start}, after its end ${end}` });
  }
  const source = `pipeline file ${p.file}`;
  if (issues.length || !start || !end || !step) throw new ValidationError(source, issues);
  const windows = cut(start, end, step);
  if (windows.length > MAX_WINDOWS) {
    throw new ValidationError(source, [
      {
        path: ["window", "step"],
        message: `${start}..${end} by ${step} is ${windows.length} windows, more than ${MAX_WINDOWS}: use a longer step or a shorter range`,
      },
    ]);
  }
  return { start, end, step, lookbackDays: lookbackDays(spec), windows };
}

/** The windows of `start`..`end` by `step` (valid, start ≤ end), at most MAX_WINDOWS + 1 of them. */
function cut(start: string, end: string, step: string): DateWindow[] {
  if (step === "range") return [{ start, end, key: "" }];
  const m = /^(\d+)(d|w|mo)$/.exec(step)!;
  const n = Number(m[1]);
  const out: DateWindow[] = [];
  for (let from = start; from <= end && out.length <= MAX_WINDOWS; ) {
    const last = m[2] === "mo" ? monthEnd(from, n) : addDays(from, m[2] === "w" ? 7 * n - 1 : n - 1);
    const to = last < end ? last : end;
    out.push({ start: from, end: to, key: "" });
    from = addDays(to, 1);
  }
  return out;
}
