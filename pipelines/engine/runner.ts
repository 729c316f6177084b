import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { migrateToLatest } from "../../connectors/warehouse/migrate.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { CreditCeilingError, ValidationError } from "../../core/errors.js";
import { durationMs } from "../../schema/pipeline.js";
import { answerQueue } from "./answer-queue.js";
import { type Ceiling, warehouseCeilings } from "./budget.js";
import { callFactory, type PlannedCall, type Prepare } from "./calls.js";
import { requestHash } from "./hash.js";
import { resolveInput, type SheetReader, staticInput } from "./inputs.js";
import { type CallRecord, isLoaded } from "./ledger.js";
import { type LoadedPipeline, listBuiltinPipelines, loadPipeline } from "./load.js";
import { type Answer, loadAnswers, storePaid } from "./load-response.js";
import { dropOtherRuns } from "./loader.js";
import { type CompiledMapping, compileMapping } from "./mapping.js";
import { paidCall, succeeded } from "./paid-call.js";
import { type ParamValue, type ParamValues, resolveParams } from "./params.js";
import { preflight } from "./preflight.js";
import { loadPrices, type PriceTable } from "./prices.js";
import { runReportCalls } from "./reports/index.js";
import { type Reserved, reservations } from "./reservations.js";
import {
  endRun,
  type RunCounters,
  type RunStatus,
  startRun,
  type Trigger,
  updateRun,
  zeroCounters,
} from "./runs.js";
import { ensureTable } from "./tables.js";
import { ensureViews } from "./views.js";
import { waiters } from "./waiters.js";

/** What the runner needs of the Skill API client. */
export interface SkillCaller {
  prepare: Prepare;
  send(
    prepared: { slug: string; body: Record<string, unknown> },
    opts?: { signal?: AbortSignal | undefined },
  ): Promise<{ data: unknown; traceId: string | null; status: number; attempts: number; elapsedMs: number }>;
}

export interface RunReporter {
  update(counters: RunCounters, note?: string): void;
}

export interface RunOptions {
  warehouse: Warehouse;
  client: SkillCaller;
  pipelines: LoadedPipeline[];
  /** `--param` values by name; each pipeline takes the ones it declares. */
  params?: Record<string, ParamValue[]>;
  maxCredits?: number | undefined;
  concurrency?: number | undefined;
  prices?: PriceTable | undefined;
  trigger?: Trigger;
  reporter?: RunReporter | undefined;
  /** Aborting stops dispatching; calls in flight finish and are recorded. */
  signal?: AbortSignal | undefined;
  sheet?: SheetReader | undefined;
  /** Called once the run has its id (new or resumed), before any call is made. */
  onStart?: ((runId: string, resumed: boolean) => void) | undefined;
}

export interface CallFailure {
  pipeline: string;
  skill: string;
  requestHash: string;
  code: string;
  message: string;
  ambiguous: boolean;
}

export interface RunSummary {
  runId: string;
  resumed: boolean;
  status: RunStatus;
  stopReason: string | undefined;
  /** 4 when the API refused the key or access, else undefined. */
  authFailure: boolean;
  counters: RunCounters;
  failures: CallFailure[];
  tables: string[];
}

interface Compiled {
  pipeline: LoadedPipeline;
  params: ParamValues;
  mapping: CompiledMapping;
  freshnessMs: number;
}

/** Splits `--param` values among pipelines; a param no pipeline declares is an error. */
function paramsFor(pipelines: LoadedPipeline[], given: Record<string, ParamValue[]>): ParamValues[] {
  const unknown = Object.keys(given).filter((k) => !pipelines.some((p) => k in p.params));
  if (unknown.length) {
    const known = [...new Set(pipelines.flatMap((p) => Object.keys(p.params)))];
    throw new ValidationError(
      "--param",
      unknown.map((k) => ({
        path: [k],
        message: `no pipeline of this run takes it (they take ${known.join(", ") || "none"})`,
      })),
    );
  }
  return pipelines.map((p) =>
    resolveParams(
      p.params,
      Object.fromEntries(Object.entries(given).filter(([k]) => k in p.params)),
      `--param for ${p.name}`,
    ),
  );
}

/** Creates every table the pipelines write (and the toolkit's own), so plans and SQL inputs can read them. */
export async function preparePipelines(
  w: Warehouse,
  pipelines: LoadedPipeline[],
  given: Record<string, ParamValue[]>,
  check?: (params: ParamValues[]) => void,
): Promise<Compiled[]> {
  const params = paramsFor(pipelines, given);
  check?.(params);
  await migrateToLatest(w);
  const compiled = pipelines.map((pipeline, i) => ({
    pipeline,
    params: params[i]!,
    mapping: compileMapping(pipeline.records),
    freshnessMs: durationMs(pipeline.freshness),
  }));
  await ensureBuiltinTables(w);
  for (const c of compiled) await ensurePipelineTables(w, c.pipeline, c.mapping);
  for (const c of compiled) await ensureViews(w, c.pipeline);
  return compiled;
}

async function ensurePipelineTables(
  w: Warehouse,
  p: LoadedPipeline,
  mapping = compileMapping(p.records),
): Promise<void> {
  await ensureTable(w, mapping.table);
  for (const child of mapping.children) await ensureTable(w, child);
}

/**
 * The built-in pipelines' tables and views exist in every warehouse (after `skillsync migrate` or
 * any run), so chained SQL inputs and ad-hoc queries never meet a missing table.
 */
export async function ensureBuiltinTables(w: Warehouse): Promise<void> {
  const builtins = builtinPipelines();
  for (const p of builtins) await ensurePipelineTables(w, p);
  for (const p of builtins) await ensureViews(w, p);
}

let builtinCache: { stamp: string; pipelines: LoadedPipeline[] } | undefined;

/** The built-in pipelines, parsed once while their files stay as they are (every run needs them). */
function builtinPipelines(): LoadedPipeline[] {
  const files = listBuiltinPipelines();
  const stamp = files.map((f) => `${f}:${statSync(f).mtimeMs}`).join("\n");
  if (builtinCache?.stamp !== stamp) builtinCache = { stamp, pipelines: files.map((f) => loadPipeline(f)) };
  return builtinCache.pipelines;
}

function runKey(pipelines: LoadedPipeline[], params: Record<string, ParamValue[]>): string {
  const files = pipelines.map(
    (p) => `${p.name}:${createHash("sha256").update(readFileSync(p.file)).digest("hex")}`,
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
  const w = o.warehouse;
  const given = o.params ?? {};
  const prices = o.prices ?? loadPrices();
  const compiled = await preparePipelines(w, o.pipelines, given, (params) =>
    preflight(o.pipelines, params, prices, o.client.prepare.bind(o.client)),
  );
  const { id: runId, resumed } = await startRun(w, {
    key: runKey(o.pipelines, given),
    pipelines: o.pipelines.map((p) => p.name),
    params: given,
    trigger: o.trigger ?? "manual",
  });
  o.onStart?.(runId, resumed);
  const counters: RunCounters = zeroCounters();
  const failures: CallFailure[] = [];
  const state = {
    stop: false,
    stopReason: undefined as string | undefined,
    authFailure: false,
    ceiling: false,
  };
  const invocation = `invocation:${runId}:${Date.now()}`;
  const base: Ceiling[] = [
    { scope: invocation, limit: o.maxCredits ?? null, label: "--max-credits" },
    ...(await warehouseCeilings(w)),
  ];
  const concurrency = Math.max(1, o.concurrency ?? 4);
  const report = (note?: string) => o.reporter?.update({ ...counters }, note);
  const heartbeat = setInterval(() => void updateRun(w, runId, counters).catch(() => {}), 5000);
  heartbeat.unref();
  const onAbort = () => {
    state.stop = true;
    state.stopReason ??= "interrupted";
  };
  o.signal?.addEventListener("abort", onAbort);
  // Aborted while the tables were being prepared: the event has already fired.
  if (o.signal?.aborted) onAbort();

  let fatal: unknown;
  try {
    for (const c of compiled) {
      if (state.stop) break;
      await runOne(c);
    }
  } catch (err) {
    fatal = err;
  } finally {
    clearInterval(heartbeat);
    o.signal?.removeEventListener("abort", onAbort);
  }

  const status = await endRun(w, runId, counters, {
    fatal,
    aborted: o.signal?.aborted === true,
    state,
    failures,
  });
  report();
  if (fatal) throw fatal;
  return {
    runId,
    resumed,
    status,
    stopReason: state.stopReason,
    authFailure: state.authFailure,
    counters,
    failures,
    tables: compiled.flatMap((c) => [c.mapping.table.name, ...c.mapping.children.map((t) => t.name)]),
  };

  async function runOne(c: Compiled): Promise<void> {
    const p = c.pipeline;
    // Values from params, lists or files are what the preflight read and validated; SQL and sheet
    // ones are read, and validated, now.
    const known = staticInput(p, c.params);
    const values =
      known === "dynamic" ? await resolveInput(p, { warehouse: w, params: c.params, sheet: o.sheet }) : known;
    const factory = callFactory(p, c.params, prices, o.client.prepare.bind(o.client));
    const calls = factory.initial(values, known !== "dynamic");
    counters.callsPlanned += calls.count;
    report(`${p.name}: ${calls.count} call(s) planned`);
    const ceilings = p.maxCredits
      ? [
          ...base,
          {
            scope: `${invocation}:${p.name}`,
            limit: p.maxCredits,
            label: `maxCredits of pipeline ${p.name}`,
          },
        ]
      : base;
    if (p.report) {
      const run = {
        runId,
        prices,
        counters,
        failures,
        state,
        report,
        signal: o.signal,
        calls: [...calls],
        ceilings,
      };
      return runReportCalls({ ...run, ...c, warehouse: w, client: o.client });
    }
    const pipelineState = { stop: false, failed: 0 };
    const reserving = reservations(w, ceilings, { freshnessMs: c.freshnessMs, runId });
    const width = Math.max(1, Math.min(concurrency, p.concurrency ?? concurrency));
    const answers = answerQueue<Answer>({
      write: async (group) => {
        const r = await loadAnswers(w, c, runId, group);
        counters.rowsWritten += r.rows;
        counters.rowsRejected += r.rejected;
        counters.callsDone += group.length;
        report();
      },
      keep: (group) => keepPaid(p, group),
      // Answers wait here, not calls: a slow database pauses the workers before memory grows.
      maxPending: Math.max(8, 2 * width),
      // Short groups: a group's rows are written in one go, and a call waiting to be reserved waits for it.
      maxGroup: 16,
      onError: () => {
        pipelineState.stop = true;
      },
      yieldTo: reserving.idle,
    });
    // A fixed set of workers pulls calls one at a time, so a run of 100,000 calls never holds
    // 100,000 pending tasks: planned calls are formed as they are taken, next pages queue behind them.
    const planned = calls[Symbol.iterator]();
    const pages: PlannedCall[] = [];
    let active = 0;
    const waiting = waiters();
    const worker = async (): Promise<void> => {
      for (;;) {
        // Stopped (ceiling, refusal, interrupt, a worker's failure): the calls left are not even formed.
        if (state.stop || pipelineState.stop) return;
        const call = pages.shift() ?? nextPlanned();
        if (!call) {
          // Nothing to take now, but a call in flight may still bring a next page.
          if (active === 0) return;
          await waiting.wait();
          continue;
        }
        active++;
        try {
          const got = await execute(c, call, ceilings, reserving.reserve, pipelineState);
          if (got) {
            const next = factory.next(call, got.data);
            if (next) {
              counters.callsPlanned++;
              pages.push(next);
              waiting.wakeAll();
            }
            // The answer loads in the background: this worker's slot is free for the next call.
            if (got.answer) await answers.push(got.answer);
          }
        } finally {
          active--;
          waiting.wakeAll();
        }
      }
    };
    // A finished generator keeps answering done.
    function nextPlanned(): PlannedCall | undefined {
      const r = planned.next();
      return r.done ? undefined : r.value;
    }
    // A worker that fails stops the others from taking calls; the calls they have in flight finish
    // and are recorded (and loaded) before the error ends the run. Promise.all would leave them
    // sending calls for a run already declared failed.
    const ended = await Promise.allSettled(
      Array.from({ length: width }, () =>
        worker().catch((err: unknown) => {
          pipelineState.stop = true;
          throw err;
        }),
      ),
    );
    await answers.drain();
    const crashed = ended.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (crashed) throw crashed.reason;
    if (c.mapping.mode === "replace" && !state.stop && !pipelineState.stop && pipelineState.failed === 0) {
      await w.db.transaction().execute(async (trx) => {
        for (const t of [c.mapping.table, ...c.mapping.children]) await dropOtherRuns(trx, t.name, runId);
      });
    }
  }

  /** Paid answers of a group that could not be loaded, stored with their ledger success. */
  async function keepPaid(p: LoadedPipeline, group: Answer[]): Promise<void> {
    if (!group.some((a) => a.ledger.kind === "paid")) return;
    await w.db.transaction().execute((trx) => storePaid(trx, p, runId, group));
  }

  /**
   * One call: from the store when a fresh answer is there (free), else paid. Returns the answer to
   * load, or undefined when there is none (stopped, refused, failed, loaded by an earlier attempt).
   */
  async function execute(
    c: Compiled,
    call: PlannedCall,
    ceilings: Ceiling[],
    reserve: (record: CallRecord) => Promise<Reserved>,
    ps: { stop: boolean; failed: number },
  ): Promise<{ data: unknown; answer: Answer | undefined } | undefined> {
    const p = c.pipeline;
    // The store is looked at and, when it has no fresh answer, the call reserved: both in one
    // transaction shared with the calls asking at the same moment.
    const first = await reserve({
      runId,
      pipeline: p.name,
      skill: p.skill,
      requestHash: call.hash,
      credits: call.credits,
    }).catch((error: unknown) => ({ error }));
    if ("stored" in first) {
      const { stored } = first;
      counters.callsCached++;
      // Whether the crashed attempt loaded it matters only for an answer found in the store (a paid
      // answer is stored in its load's transaction): a resumed run asks for these, not every call.
      if (resumed && (await isLoaded(w, runId, p.name, call.hash))) {
        counters.callsDone++;
        report();
        // Loaded before the crash: nothing to write, but its next page still follows.
        return { data: stored.data, answer: undefined };
      }
      const answer: Answer = {
        call,
        data: stored.data,
        receivedAt: stored.receivedAt,
        ledger: { kind: "cached" },
      };
      return { data: stored.data, answer };
    }

    const out = await paidCall(
      {
        warehouse: w,
        client: o.client,
        runId,
        pipeline: p,
        ceilings,
        counters,
        failures,
        state,
        pipelineStop: ps,
        report,
        reserve: () => ("error" in first ? Promise.reject(first.error) : Promise.resolve(first.callId)),
      },
      { skill: p.skill, body: call.body, hash: call.hash, credits: call.credits },
    );
    if (!out.ok) {
      if (!(out.error instanceof CreditCeilingError)) ps.failed++;
      return undefined;
    }
    const { callId, result } = out;
    const data = result.data ?? {};
    const answer: Answer = {
      call,
      data,
      receivedAt: out.receivedAt,
      ledger: {
        kind: "paid",
        callId,
        traceId: result.traceId,
        end: succeeded(result),
      },
    };
    return { data, answer };
  }
}
