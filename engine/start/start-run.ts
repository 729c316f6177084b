import type { SheetsConnector } from "../../connectors/sheets/connector.js";
import type { Log } from "../../core/log.js";
import { runOnWorkers, type WorkersOptions } from "../distribute/on-workers.js";
import type { NotifyTarget } from "../notify/config.js";
import { deliverWithin } from "../notify/loop.js";
import { type AfterRunResult, afterRun } from "../publish/after-run.js";
import { type RunOptions, type RunSummary, runPipelines } from "../run/runner.js";

// What the front doors (cli/, scheduler/, server/, mcp/) need of a run, from here only
// (test/architecture/front-doors.test.ts).
export type { WorkersOptions } from "../distribute/on-workers.js";
export { pushView, sheetsForRun } from "../publish/after-run.js";
export type { OutputPush } from "../publish/sheets-push.js";
export type { RunReporter, RunSummary, SkillCaller } from "../run/runner.js";

export interface StartRunOptions extends Omit<RunOptions, "runStage" | "notify"> {
  /** `--workers`: the calls are queued for `skillsync worker` processes; without it they are made here. */
  workers?: WorkersOptions | undefined;
  /**
   * Push the pipelines' `sheet:` outputs once the run has loaded, with this connector (undefined:
   * Google Sheets is not configured, which the outputs' lines say). Absent: no push (the demo;
   * serve's sheet schedules, which refresh their own tab).
   */
  outputs?: { sheets: SheetsConnector | undefined } | undefined;
  /** Webhooks told of the run's end and budget crossings (`--notify`, a schedule's `notify:`). */
  notify?: readonly NotifyTarget[] | undefined;
  /**
   * `skillsync run`: deliver the run's events (a failed run's too) before returning, for 1 s at
   * most; the rest wait in the outbox. Daemons leave them to their delivery loop.
   */
  deliverNow?: { log: Log } | undefined;
}

/** What every front door gets back from a run: the run's summary and what followed its load. */
export interface StartedRun {
  summary: RunSummary;
  /** The `sheet:` outputs pushed (none when `outputs` was not asked for or nothing loaded). */
  outputs: AfterRunResult;
}

/** `startRun`, or a stand-in with its shape (a scheduler under a fake clock). */
export type StartRun = (o: StartRunOptions) => Promise<StartedRun>;

/**
 * The one way to start a run, whatever the front door (CLI `run` and `demo`, a scheduler's tick,
 * the server's queue, MCP's `run` tool): makes the run here or on the workers, then does what
 * follows a load — the `sheet:` outputs pushed, the run's events delivered — and answers in one
 * shape. A run that throws throws here too (after its events are delivered when `deliverNow`).
 *
 * @example
 * const { summary, outputs } = await startRun({ warehouse, client, pipelines, params, outputs: { sheets } });
 */
export async function startRun(o: StartRunOptions): Promise<StartedRun> {
  try {
    const summary = await makeRun(o);
    const outputs = o.outputs ? await pushOutputs(o, o.outputs.sheets, summary) : { pushes: [], lines: [] };
    // Watches need nothing here: they are evaluated inside each load (engine/load/watches), so
    // every front door, a worker and a resumed run alert alike; their events are delivered below.
    return { summary, outputs };
  } finally {
    if (o.deliverNow) await deliverWithin(o.warehouse, o.notify ?? [], undefined, o.deliverNow);
  }
}

/** The run itself: its calls made by the workers, or here. */
function makeRun(o: StartRunOptions): Promise<RunSummary> {
  const { workers, outputs: _outputs, deliverNow: _deliverNow, ...run } = o;
  return workers ? runOnWorkers({ ...run, workers }) : runPipelines(run);
}

/** The pipelines' `sheet:` outputs, pushed when the run loaded (never throws for a push). */
function pushOutputs(
  o: StartRunOptions,
  sheets: SheetsConnector | undefined,
  summary: RunSummary,
): Promise<AfterRunResult> {
  return afterRun({ warehouse: o.warehouse, sheets, pipelines: o.pipelines, summary, params: o.params });
}
