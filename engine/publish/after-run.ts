import { SheetsConnector } from "../../connectors/sheets/connector.js";
import { notConfiguredError } from "../../connectors/sheets/google-auth.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { redact } from "../../core/redact.js";
import type { SheetReader } from "../define/inputs.js";
import type { ParamValue } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { type OutputPush, pushPipelineOutputs } from "./sheets-push.js";

/** What happened after a run: its `sheet:` outputs, pushed or not. */
export interface AfterRunResult {
  /** One per pipeline with a `sheet:` output that was tried (empty when nothing was to be pushed). */
  pushes: OutputPush[];
  /** Set (the reason) when some pipeline has a `sheet:` output but Google Sheets is not configured. */
  notConfigured?: string | undefined;
  /** The same as printable lines (the CLI prints them, the scheduler logs them). */
  lines: string[];
}

/**
 * The push that follows a run's load, whatever started it (engine/start's `startRun` calls it for
 * CLI `run`, the scheduler, the server and MCP): pushes each pipeline's `sheet:` output — the rows
 * this run loaded — when the run loaded (succeeded, or ended with warnings: rejected records did
 * not stop the others). A failed push is reported per pipeline; the loaded data stays in the
 * warehouse either way. Never throws for a push. (Notifications are not here: the run's end writes
 * them to the outbox with the run row.)
 *
 * @example
 * const after = await afterRun({ warehouse, sheets, pipelines, summary, params });
 * for (const line of after.lines) printLine(line);
 */
export async function afterRun(o: {
  warehouse: Warehouse;
  /** Undefined when Google Sheets is not configured. */
  sheets: SheetsConnector | undefined;
  pipelines: readonly LoadedPipeline[];
  summary: { runId: string; status: string };
  params?: Record<string, ParamValue[]> | undefined;
}): Promise<AfterRunResult> {
  const outputs = o.pipelines.filter((p) => p.sheet);
  if (!outputs.length || (o.summary.status !== "succeeded" && o.summary.status !== "warnings"))
    return { pushes: [], lines: [] };
  if (!o.sheets) {
    const reason = notConfiguredError().message;
    return { pushes: [], notConfigured: reason, lines: [`sheet outputs not pushed: ${reason}`] };
  }
  const pushes = await pushPipelineOutputs({
    warehouse: o.warehouse,
    sheets: o.sheets,
    pipelines: outputs,
    runId: o.summary.runId,
    params: o.params,
  });
  return {
    pushes,
    lines: pushes.map((p) =>
      p.result
        ? `sheet: ${p.pipeline}: ${p.result.rows} row(s) to "${p.result.tab}" (${p.result.mode})`
        : `sheet: ${p.pipeline}: not pushed: ${p.error}`,
    ),
  };
}

/** A push as the server's run view and MCP's run answer show it (the error redacted). */
export function pushView(p: OutputPush) {
  return {
    pipeline: p.pipeline,
    ...(p.result ? { tab: p.result.tab, rows: p.result.rows, range: p.result.range } : {}),
    ...(p.error ? { error: redact(p.error) } : {}),
  };
}

/**
 * What a CLI run needs from Sheets, from the environment: the connector (undefined when Sheets is
 * not set up) for the `sheet:` outputs' push, and the reader for `from: sheet` inputs.
 *
 * @example
 * const sheets = await sheetsForRun();
 * const { summary, outputs } = await startRun({ ...options, sheet: sheets.reader, outputs: { sheets: sheets.connector } });
 */
export async function sheetsForRun(env?: NodeJS.ProcessEnv): Promise<{
  connector: SheetsConnector | undefined;
  reader: SheetReader | undefined;
}> {
  const connector = await SheetsConnector.fromEnv(env);
  return { connector, reader: connector?.reader() };
}
