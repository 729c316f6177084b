import { createHash } from "node:crypto";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { requestHash } from "../../core/hash.js";
import type { Ceiling } from "../../store/budget.js";
import type { OutboxTarget } from "../../store/outbox.js";
import type { RunCounters, RunStatus, Trigger } from "../../store/runs.js";
import type { SheetReader } from "../define/inputs.js";
import type { ParamValue } from "../define/params.js";
import { type LoadedPipeline, readPipelineBytes } from "../define/pipeline-file.js";
import { loadPrices, type PriceTable } from "../define/prices.js";
import { neverReached } from "../extract/paid-call.js";
import { shareRateLimit } from "../extract/rate-share.js";
import type { CallFailure, SkillCaller } from "../extract/skill-caller.js";
import { lostWarehouse, type RunPlace } from "./lost-warehouse.js";
import { preflight } from "./preflight.js";
import type { Compiled } from "./prepare.js";
import { preparePipelines } from "./prepare.js";
import { type RunEnv, runPipeline } from "./run-pipeline.js";
import { inRunSession, type RunReporter, type RunSession } from "./session.js";
import { checkRunPricing } from "./unpriced.js";
import { runWindowedPipeline } from "./windows/run-windowed.js";

export type { SkillCaller } from "../extract/skill-caller.js";
export { makeTables } from "./make-tables.js";
export type { RunReporter } from "./session.js";

export interface RunOptions {
  warehouse: Warehouse;
  client: SkillCaller;
  pipelines: LoadedPipeline[];
  /** `--param` values by name; each pipeline takes the ones it declares. */
  params?: Record<string, ParamValue[]>;
  maxCredits?: number | undefined;
  /**
   * More ceilings every paid call of the run is reserved against, besides `maxCredits`, the
   * pipelines' own and the warehouse's budgets: an MCP server's total over all the runs it starts.
   * Calls made here only: not with a `runStage` that hands them to workers.
   */
  ceilings?: Ceiling[] | undefined;
  concurrency?: number | undefined;
  prices?: PriceTable | undefined;
  /**
   * `--allow-unpriced`: a ceiling over an operation priced 0 or unpriced runs, with a warning,
   * instead of being refused (engine/run/unpriced.ts).
   */
  allowUnpriced?: boolean | undefined;
  trigger?: Trigger;
  reporter?: RunReporter | undefined;
  /** Aborting stops dispatching; calls in flight finish and are recorded. */
  signal?: AbortSignal | undefined;
  sheet?: SheetReader | undefined;
  /** Rejected records, empty columns and unmapped members fail the run (`--strict`). */
  strict?: boolean | undefined;
  /** Rejected records leave the run `succeeded` instead of `warnings` (`--allow-rejects`). */
  allowRejects?: boolean | undefined;
  /** `--refresh`: every pipeline's freshness is 0 for this run: nothing reused from the store, every item paid again. */
  refresh?: boolean | undefined;
  /** Called once the run has its id (new or resumed), before any call is made. */
  onStart?: ((runId: string, resumed: boolean) => void) | undefined;
  /** Called after each pipeline of the run, with the run's counters so far (`--log-format json`). */
  onPipelineEnd?: ((pipeline: string, counters: RunCounters) => void) | undefined;
  /** Runs one pipeline of the run (default: here, runPipeline); workers' runs hand the calls to a queue. */
  runStage?: StageRunner | undefined;
  /** Webhooks (their hashes) told of the run's end and budget crossings: `--notify` (docs/notifications.md). */
  notify?: readonly OutboxTarget[] | undefined;
}

/** How one pipeline of a run gets its calls made: in this process, or by workers. */
type StageRunner = (s: RunSession, env: RunEnv, c: Compiled) => Promise<void>;

export interface RunSummary {
  runId: string;
  resumed: boolean;
  status: RunStatus;
  stopReason: string | undefined;
  /** 4 when the API refused the key or access, else undefined. */
  authFailure: boolean;
  /** The API could not be reached at all (no call got through): the setting is wrong, exit 2. */
  apiUnreachable: boolean;
  counters: RunCounters;
  failures: CallFailure[];
  /** What the answers showed about the mappings: rejected records, empty columns, unmapped members. */
  warnings: string[];
  /** Notes for a person: a pipeline that had nothing to ask, and why. */
  notes: string[];
  tables: string[];
  /**
   * The credits are the catalog's guesses (or unpriced), not the prices of a price file the user
   * wrote: what the account was billed may differ (docs/pricing.md).
   */
  creditsEstimated: boolean;
  /** Under `allowUnpriced`: the operations a ceiling of the run does not bind, said loudly. */
  priceWarnings: string[];
}

function runKey(pipelines: LoadedPipeline[], params: Record<string, ParamValue[]>): string {
  const files = pipelines.map(
    (p) => `${p.name}:${createHash("sha256").update(readPipelineBytes(p.file)).digest("hex")}`,
  );
  return requestHash("run", { files, params });
}

/**
 * Runs pipelines in order (a later one can read what an earlier one loaded): calls under a
 * concurrency limit and credit ceilings, each paid call reserved before it is sent, each response
 * stored, loaded and marked in one transaction. A run started again with the same pipelines and
 * params resumes: stored responses are reused for free, loaded pages are skipped.
 *
 * @example
 * const summary = await runPipelines({ warehouse, client, pipelines: [loadPipeline("marketplace-search")],
 *   params: { keyword: ["usb hub"] }, maxCredits: 50, concurrency: 8 });
 */
export async function runPipelines(o: RunOptions): Promise<RunSummary> {
  if (o.ceilings?.length && o.runStage) throw new Error("runPipelines: extra ceilings do not reach workers");
  const given = o.params ?? {};
  const prices = o.prices ?? loadPrices();
  // Before the warehouse is migrated or given tables: a refused run leaves nothing behind.
  const pricing = await checkRunPricing(o.warehouse, { ...o, prices });
  let early: string[] = [];
  const compiled = await preparePipelines(o.warehouse, o.pipelines, given, (params) => {
    early = preflight(o.pipelines, params, prices, o.client.prepare.bind(o.client));
  });
  if (o.refresh) for (const c of compiled) c.freshnessMs = 0;
  shareRateLimit(o.client, o.warehouse);
  const env = runEnv(o, prices);
  const at: { place?: RunPlace } = {};
  const { session, status } = await inRunSession(
    {
      warehouse: o.warehouse,
      key: runKey(o.pipelines, given),
      pipelines: o.pipelines.map((p) => p.name),
      params: given,
      trigger: o.trigger ?? "manual",
      maxCredits: o.maxCredits,
      creditsEstimated: pricing.creditsEstimated,
      reporter: o.reporter,
      signal: o.signal,
      onStart: o.onStart,
      notify: o.notify,
    },
    (s) => runStages(s, o, env, { compiled, early, at }),
  ).catch((err: unknown) => {
    throw lostWarehouse(err, o.warehouse, at.place) ?? err;
  });
  return summaryOf(session, status, compiled, pricing);
}

function runEnv(o: RunOptions, prices: PriceTable): RunEnv {
  return {
    client: o.client,
    prices,
    sheet: o.sheet,
    concurrency: Math.max(1, o.concurrency ?? 4),
    strict: o.strict,
    allowRejects: o.allowRejects,
    refresh: o.refresh,
  };
}

/** The run's pipelines in order, inside its session; `at` follows where it is, for a lost warehouse. */
async function runStages(
  s: RunSession,
  o: RunOptions,
  env: RunEnv,
  run: { compiled: Compiled[]; early: string[]; at: { place?: RunPlace } },
): Promise<void> {
  if (o.ceilings) s.ceilings = [...s.ceilings, ...o.ceilings];
  s.warnings.push(...run.early);
  const pool = o.client.config?.connections;
  if (pool && env.concurrency > pool)
    s.notes.push(
      `calls in flight are at most ${pool}, the client's connections, not the ${env.concurrency} asked for`,
    );
  for (const c of run.compiled) {
    if (s.state.stop) break;
    run.at.place = { runId: s.runId, pipeline: c.pipeline.name, counters: s.counters };
    // A windowed pipeline records its windows as their calls load: it runs here (as reports do).
    await (c.pipeline.window ? runWindowedPipeline : (o.runStage ?? runPipeline))(s, env, c);
    o.onPipelineEnd?.(c.pipeline.name, { ...s.counters });
  }
  neverReached(s.state, s.counters, o.client.config?.baseUrl);
}

function summaryOf(
  s: RunSession,
  status: RunStatus,
  compiled: Compiled[],
  pricing: { creditsEstimated: boolean; warnings: string[] },
): RunSummary {
  return {
    runId: s.runId,
    resumed: s.resumed,
    status,
    stopReason: s.state.stopReason,
    authFailure: s.state.authFailure,
    apiUnreachable: s.state.unreachable === true && s.counters.callsDone === 0,
    counters: s.counters,
    failures: s.failures,
    warnings: s.warnings,
    notes: s.notes,
    tables: compiled.flatMap((c) => [c.mapping.table.name, ...c.mapping.children.map((t) => t.name)]),
    creditsEstimated: pricing.creditsEstimated,
    priceWarnings: pricing.warnings,
  };
}
