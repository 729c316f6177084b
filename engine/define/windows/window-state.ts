import { canonicalJson, sha256Hex } from "../../../core/hash.js";
import type { PipelineFile } from "../../../schema/pipeline.js";
import type { WindowSeen } from "../../../store/windows-done.js";
import type { ParamValues } from "../params.js";
import { addDays, type DateWindow, PARAM } from "./date-range.js";

/** The params the window block names (`{{start}}`…): the window's own, left out of its identity. */
function windowParamNames(p: PipelineFile): string[] {
  if (!p.window) return [];
  return [p.window.start, p.window.end, p.window.step].flatMap((v) => {
    const m = PARAM.exec(v);
    return m ? [m[1]!] : [];
  });
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
