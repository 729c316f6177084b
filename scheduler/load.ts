import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { isNode, LineCounter, parseDocument } from "yaml";
import { type Issue, ValidationError } from "../core/errors.js";
import { type ParamValue, resolveParams } from "../engine/define/params.js";
import { type LoadedPipeline, loadPipeline, readPipelineBytes } from "../engine/define/pipeline-file.js";
import { type NotifyTarget, notifyFromFile } from "../engine/notify/config.js";
import type { ScheduleSpec } from "../schema/schedule.js";
import { type SheetSchedule, sheetScheduleKey } from "../store/sheet-schedules.js";

/** A pipeline with its `schedule:` block, ready for the scheduler. */
export interface ScheduledPipeline {
  pipeline: LoadedPipeline;
  schedule: ScheduleSpec;
  /** The webhook of its `schedule.notify`, its URL read from the variable it names. */
  notify?: NotifyTarget[] | undefined;
  /** A schedule made from a spreadsheet (`POST /schedules`): the tab each run's rows refresh. */
  sheet?: SheetSchedule | undefined;
}

/** The name a schedule's ticks, run slot and state are kept under: its pipeline's, or `sheet:<id>`. */
export const scheduleKey = (sp: ScheduledPipeline): string =>
  sp.sheet ? sheetScheduleKey(sp.sheet.id) : sp.pipeline.name;

/** How a schedule is named in the log: its pipeline, and the tab a sheet schedule refreshes. */
export const scheduleLabel = (sp: ScheduledPipeline): string =>
  sp.sheet ? `${sp.pipeline.name} → tab "${sp.sheet.tab}" (${sp.sheet.id})` : sp.pipeline.name;

/** Where the scheduler looks when no file or folder is named. */
export const DEFAULT_SCHEDULE_DIR = "pipelines";

/** A folder's `.yaml`/`.yml` files, sorted. */
export function yamlFilesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** The schedule's params as `--param` lists (a scalar is a list of one). */
export function scheduleParams(s: ScheduleSpec): Record<string, ParamValue[]> {
  return Object.fromEntries(Object.entries(s.params).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
}

// Param names and values are checked against the pipeline's declarations, with the line they are on.
function checkParams(p: LoadedPipeline, s: ScheduleSpec): void {
  try {
    resolveParams(p.params, scheduleParams(s), "schedule.params");
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const lines = new LineCounter();
    const doc = parseDocument(readPipelineBytes(p.file).toString("utf8"), { lineCounter: lines });
    const issues: Issue[] = err.issues.map((i) => {
      const path = ["schedule", "params", ...i.path];
      const node = doc.getIn(path.slice(0, 3), true) ?? doc.getIn(["schedule", "params"], true);
      const at = isNode(node) && node.range ? lines.linePos(node.range[0]).line : undefined;
      return { path, message: at === undefined ? i.message : `${i.message} (line ${at})` };
    });
    throw new ValidationError(`pipeline file ${p.file}`, issues);
  }
}

/**
 * Loads the scheduled pipelines from files and folders (default `./pipelines`). A file named
 * explicitly must carry a `schedule:` block; in a folder, files without one are passed over.
 * Every file is validated before anything starts, errors carrying file and line.
 *
 * @example const scheduled = loadSchedules(["pipelines/"]); // [{ pipeline, schedule }, …]
 */
export function loadSchedules(refs: string[], o: { notify?: boolean } = {}): ScheduledPipeline[] {
  const targets = refs.length > 0 ? refs : [DEFAULT_SCHEDULE_DIR];
  const out: ScheduledPipeline[] = [];
  for (const ref of targets) {
    const isDir = existsSync(ref) && statSync(ref).isDirectory();
    if (!isDir && refs.length === 0) {
      throw new ValidationError("command line", [
        { path: [], message: `no ./${DEFAULT_SCHEDULE_DIR} folder here; name pipeline files or a folder` },
      ]);
    }
    for (const file of isDir ? yamlFilesIn(resolve(ref)) : [ref]) {
      const pipeline = loadPipeline(file);
      if (!pipeline.schedule) {
        if (isDir) continue;
        throw new ValidationError(`pipeline file ${pipeline.file}`, [
          { path: ["schedule"], message: "has no schedule: block, so there is nothing to schedule" },
        ]);
      }
      checkParams(pipeline, pipeline.schedule);
      const n = pipeline.schedule.notify;
      out.push({
        pipeline,
        schedule: pipeline.schedule,
        // Its URL is read from the environment only where it is used (`--list` does not need it).
        ...(n && o.notify !== false ? { notify: [notifyFromFile(n, pipeline.file)] } : {}),
      });
    }
  }
  const seen = new Map<string, string>();
  for (const { pipeline } of out) {
    const other = seen.get(pipeline.name);
    if (other && other !== pipeline.file) {
      throw new ValidationError("schedules", [
        { path: [pipeline.name], message: `two files name this pipeline: ${other} and ${pipeline.file}` },
      ]);
    }
    seen.set(pipeline.name, pipeline.file);
  }
  const unique = out.filter((s, i) => out.findIndex((o) => o.pipeline.file === s.pipeline.file) === i);
  if (unique.length === 0) {
    throw new ValidationError("schedules", [
      { path: [], message: `none of ${targets.join(", ")} has a schedule: block` },
    ]);
  }
  return unique;
}
