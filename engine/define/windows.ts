import { type Issue, ValidationError } from "../../core/errors.js";
import { canonicalJson, sha256Hex } from "../../core/hash.js";
import type { PipelineFile } from "../../schema/pipeline.js";
import { WINDOW_STEP, type WindowSpec } from "../../schema/window.js";
import type { WindowSeen } from "../../store/windows.js";
import { type ParamValue, type ParamValues, resolveDate } from "./params.js";
import { templateUses } from "./template.js";

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

const PARAM = /^\{\{\s*([a-zA-Z][a-zA-Z0-9_]*)\s*\}\}$/;

/** The params the window block names (`{{start}}`…): the window's own, left out of its identity. */
function windowParamNames(p: PipelineFile): string[] {
  if (!p.window) return [];
  return [p.window.start, p.window.end, p.window.step].flatMap((v) => {
    const m = PARAM.exec(v);
    return m ? [m[1]!] : [];
  });
}

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

/**
 * Keys the windows: the identity of a window is its pipeline (name, skill, request template), the
 * params other than the window's own, the input values, and its first and last day — so moving
 * `end` leaves the earlier windows' identities alone, and asking other things is other windows.
 */
export function keyWindows(
  p: PipelineFile,
  params: ParamValues,
  values: string[] | undefined,
  windows: DateWindow[],
): DateWindow[] {
  const own = new Set(windowParamNames(p));
  const base = sha256Hex(
    canonicalJson({
      pipeline: p.name,
      skill: p.skill,
      request: p.request,
      params: Object.fromEntries(Object.entries(params).filter(([k]) => !own.has(k))),
      input: values ? [...values].sort() : null,
    }),
  );
  return windows.map((w) => ({ ...w, key: sha256Hex(`${base}\n${w.start}\n${w.end}`) }));
}

/**
 * What a run does with a window: `new` (never recorded: asked, stored answers within freshness
 * reused), `again` (recorded, but within `lookback` of the range's end and the range has moved on
 * since it was asked: asked again, no stored answer reused), `done` (skipped).
 *
 * A recorded window is settled once it was asked by a run whose range ended at least `lookback`
 * days after it; until then, each run whose range ends later than the one that asked it asks it again.
 */
export function windowState(
  w: DateWindow,
  record: WindowSeen | undefined,
  o: { rangeEnd: string; lookbackDays: number; runId?: string | undefined; refresh?: boolean | undefined },
): "new" | "again" | "done" {
  if (!record) return "new";
  // Finished by an earlier part of this very run (resumed): never asked twice by one run.
  if (o.runId !== undefined && record.runId === o.runId) return "done";
  if (o.refresh) return "again";
  const settled = addDays(w.end, o.lookbackDays) <= record.askedThrough;
  return !settled && record.askedThrough < o.rangeEnd ? "again" : "done";
}

/** Whether a window may be recorded done: it has ended (its last day is before today, UTC). */
export const windowEnded = (w: DateWindow, now = new Date()): boolean =>
  w.end < now.toISOString().slice(0, 10);

/**
 * What a window block gets wrong that the file alone shows (read time, exit 2): literal dates that
 * are none or out of order, a param of the wrong type, no request member reading the window (every
 * window would ask the same), `replace` without a key (a window asked again could not replace its rows).
 */
export function windowIssues(p: PipelineFile): Issue[] {
  const spec = p.window;
  if (!spec) return [];
  const issues: Issue[] = [];
  const literal: Record<string, string | undefined> = {};
  for (const member of ["start", "end"] as const) {
    const text = spec[member];
    const ref = PARAM.exec(text)?.[1];
    if (!ref) {
      literal[member] = resolveDate(text);
      if (!literal[member])
        issues.push({ path: ["window", member], message: `"${text}" is not a date (yyyy-mm-dd)` });
      continue;
    }
    const def = p.params[ref];
    if (def && def.type !== "date" && def.type !== "string")
      issues.push({
        path: ["window", member],
        message: `param ${ref} is of type ${def.type}; a window's ${member} takes a date param`,
      });
    if (def?.repeatable)
      issues.push({
        path: ["window", member],
        message: `param ${ref} is repeatable; a window's ${member} is one date`,
      });
  }
  if (literal["start"] && literal["end"] && literal["start"] > literal["end"])
    issues.push({
      path: ["window", "start"],
      message: `the range starts ${literal["start"]}, after its end ${literal["end"]}`,
    });
  const stepRef = PARAM.exec(spec.step)?.[1];
  const stepDef = stepRef ? p.params[stepRef] : undefined;
  for (const v of stepDef?.enum ?? []) {
    if (!WINDOW_STEP.test(v))
      issues.push({
        path: ["params", stepRef!, "enum"],
        message: `"${v}" is not a window length (window.step reads this param): use Nd, Nw, Nmo or range`,
      });
  }
  if (!templateUses(p.request).some((u) => isWindowName(u.name)))
    issues.push({
      path: ["window"],
      message:
        "no request member reads the window ({{window.start}}, {{window.end}}, {{window.start:yyyymmdd}}): every window would ask the same",
    });
  if (p.records.mode === "replace" && !p.report && !p.records.key?.length)
    issues.push({
      path: ["records", "key"],
      message:
        "mode replace with a window needs a key: a window asked again replaces its rows by key (windows not asked keep theirs)",
    });
  return issues;
}
