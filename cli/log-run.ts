import type { Log, LogLevel } from "../core/log.js";
import type { RunReporter, RunSummary } from "../engine/start/start-run.js";
import { type RunCounters, zeroCounters } from "../store/runs.js";
import { progressLine } from "./progress.js";

/** How often a run logs its counters (`run.progress`) in JSON: a log line, not a progress bar. */
const PROGRESS_MS = 10_000;
/** Failures told one by one at most; the same message is told once with its count. */
const MAX_FAILURES = 10;

/** What a pipeline of the run did: the run's counters now, less what they were when it began. */
function since(before: RunCounters, now: RunCounters): RunCounters {
  const out = { ...now };
  for (const k of Object.keys(out) as (keyof RunCounters)[]) out[k] = now[k] - before[k];
  return out;
}

const levelOf = (status: string): LogLevel =>
  status === "succeeded" ? "info" : status === "failed" ? "error" : "warn";

/**
 * The events of one `skillsync run` under `--log-format json`, on the given log: `run.started`,
 * `run.note`, `run.progress`, `run.pipeline.finished`, then `run.warning`, `run.failure` and
 * `run.finished` from the summary. Each carries the run's id once it has one.
 */
export function runEvents(log: Log) {
  let runId: string | undefined;
  let last = Date.now();
  let before = zeroCounters();
  const reporter: RunReporter & { stop(): void } = {
    update(c, note) {
      if (note) log(note, { event: "run.note", runId });
      if (Date.now() - last < PROGRESS_MS) return;
      last = Date.now();
      log(progressLine(c), { event: "run.progress", runId, counters: c });
    },
    stop() {},
  };
  return {
    reporter,
    onStart(id: string, resumed: boolean) {
      runId = id;
      log(`run ${id}${resumed ? " (resumed)" : ""} started`, { event: "run.started", runId, resumed });
    },
    onPipelineEnd(pipeline: string, counters: RunCounters) {
      const own = since(before, counters);
      before = counters;
      log(`${pipeline}: ${progressLine(own)}`, {
        event: "run.pipeline.finished",
        runId,
        pipeline,
        counters: own,
      });
    },
    /** The end of the run: its warnings, failures (grouped) and outcome. */
    finished: (s: RunSummary, exitCode: number, outputs: string[]) => logRunEnd(log, s, exitCode, outputs),
  };
}

/** `run.note`, `run.warning`, `run.failure` (the same failure once, with its count), `run.output` and `run.finished`. */
function logRunEnd(log: Log, s: RunSummary, exitCode: number, outputs: string[]): void {
  const id = s.runId;
  for (const n of s.notes) log(n, { event: "run.note", runId: id });
  for (const w of s.warnings) log(w, { event: "run.warning", level: "warn", runId: id });
  const grouped = new Map<string, { f: RunSummary["failures"][number]; count: number }>();
  for (const f of s.failures) {
    const key = `${f.pipeline}/${f.skill}: ${f.message}`;
    const g = grouped.get(key);
    if (g) g.count++;
    else grouped.set(key, { f, count: 1 });
  }
  for (const [key, { f, count }] of [...grouped].slice(0, MAX_FAILURES))
    log(`${key}${f.ambiguous ? " (may have been billed)" : ""}`, {
      event: "run.failure",
      level: "error",
      runId: id,
      pipeline: f.pipeline,
      skill: f.skill,
      ambiguous: Boolean(f.ambiguous),
      count,
    });
  for (const line of outputs) log(line, { event: "run.output", runId: id });
  log(`run ${id}: ${s.status}: ${progressLine(s.counters)}${s.stopReason ? `; ${s.stopReason}` : ""}`, {
    event: "run.finished",
    level: levelOf(s.status),
    runId: id,
    status: s.status,
    exitCode,
    resumed: s.resumed,
    stopReason: s.stopReason ?? null,
    counters: s.counters,
    failures: s.failures.length,
    tables: s.tables,
  });
}
