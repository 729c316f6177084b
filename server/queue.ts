import type { SheetsConnector } from "../connectors/sheets/connector.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import { redact } from "../core/redact.js";
import type { ParamValue } from "../engine/define/params.js";
import type { LoadedPipeline } from "../engine/define/pipeline-file.js";
import type { PriceTable } from "../engine/define/prices.js";
import type { NotifyTarget } from "../engine/notify/config.js";
import {
  type OutputPush,
  type SkillCaller,
  type StartedRun,
  startRun,
  type WorkersOptions,
} from "../engine/start/start-run.js";
import { newRunId, type RunCounters, type RunStatus, zeroCounters } from "../store/runs.js";

type JobStatus = "queued" | RunStatus;

/** A run asked for through the server: queued, then run by the engine. */
export interface Job {
  /** The id POST /runs answers; the warehouse's own run id is `warehouseRunId` once started. */
  id: string;
  pipeline: string;
  params: Record<string, ParamValue[]>;
  maxCredits: number;
  status: JobStatus;
  queuedAt: string;
  startedAt: string | undefined;
  finishedAt: string | undefined;
  warehouseRunId: string | undefined;
  resumed: boolean;
  /** The credits are priced by the catalog's guesses, not a price file (known once the run ends). */
  creditsEstimated?: boolean | undefined;
  counters: RunCounters;
  stopReason: string | undefined;
  errors: { code: string; message: string }[];
  /** Rejected records, empty columns and unmapped members the run's answers showed. */
  warnings: string[];
  tables: string[];
  sheetPushes: OutputPush[];
}

export interface QueueOptions {
  warehouse: Warehouse;
  client: SkillCaller;
  /** Runs at once overall (one per pipeline in any case). */
  maxRuns: number;
  /** Calls in flight within one run. */
  callConcurrency?: number | undefined;
  sheets?: SheetsConnector | undefined;
  /** The price table runs reserve with (`--prices` / SKILLSYNC_PRICES; default the catalog). */
  prices?: PriceTable | undefined;
  /** Finished jobs kept in memory for GET /runs. */
  keepFinished?: number | undefined;
  /** `--allow-unpriced`: runs go ahead, with a warning, under a ceiling that cannot bind an operation. */
  allowUnpriced?: boolean | undefined;
  /** `--workers`: the runs' calls are queued for `skillsync worker` processes (default: made here). */
  workers?: WorkersOptions | undefined;
  /** Webhooks told of every run's end (`--notify`). */
  notify?: readonly NotifyTarget[] | undefined;
}

/**
 * The server's run queue: first in, first out, at most `maxRuns` at once and never two runs of
 * the same pipeline together (they would share tables and a resume key).
 */
export class RunQueue {
  private readonly jobs = new Map<string, Job>();
  private readonly waiting: { job: Job; pipeline: LoadedPipeline }[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();

  constructor(private readonly o: QueueOptions) {}

  submit(pipeline: LoadedPipeline, params: Record<string, ParamValue[]>, maxCredits: number): Job {
    const job: Job = {
      id: newRunId().replace(/^r/, "q"),
      pipeline: pipeline.name,
      params,
      maxCredits,
      status: "queued",
      queuedAt: new Date().toISOString(),
      startedAt: undefined,
      finishedAt: undefined,
      warehouseRunId: undefined,
      resumed: false,
      counters: zeroCounters(),
      stopReason: undefined,
      errors: [],
      warnings: [],
      tables: [],
      sheetPushes: [],
    };
    this.jobs.set(job.id, job);
    this.waiting.push({ job, pipeline });
    this.pump();
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /** Newest first. */
  list(): Job[] {
    return [...this.jobs.values()].reverse();
  }

  counts(): { queued: number; running: number } {
    return { queued: this.waiting.length, running: this.running.size };
  }

  /** Stops taking runs, interrupts the running ones (resumable) and waits for them. */
  async close(): Promise<void> {
    this.abort.abort();
    for (const w of this.waiting.splice(0)) {
      w.job.status = "interrupted";
      w.job.finishedAt = new Date().toISOString();
      w.job.stopReason = "server stopped before the run started";
    }
    await Promise.allSettled([...this.running.values()]);
  }

  private busyPipelines(): Set<string> {
    return new Set([...this.running.keys()].map((id) => this.jobs.get(id)?.pipeline ?? ""));
  }

  private pump(): void {
    if (this.abort.signal.aborted) return;
    for (let i = 0; i < this.waiting.length && this.running.size < this.o.maxRuns; ) {
      const next = this.waiting[i]!;
      if (this.busyPipelines().has(next.job.pipeline)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      const done = this.execute(next.job, next.pipeline).finally(() => {
        this.running.delete(next.job.id);
        this.forgetOld();
        this.pump();
      });
      this.running.set(next.job.id, done);
    }
  }

  private async execute(job: Job, pipeline: LoadedPipeline): Promise<void> {
    job.status = "running";
    job.startedAt = new Date().toISOString();
    try {
      const started = await startRun({
        warehouse: this.o.warehouse,
        client: this.o.client,
        pipelines: [pipeline],
        params: job.params,
        maxCredits: job.maxCredits,
        concurrency: this.o.callConcurrency,
        prices: this.o.prices,
        allowUnpriced: this.o.allowUnpriced,
        trigger: "server",
        signal: this.abort.signal,
        sheet: this.o.sheets?.reader(),
        reporter: {
          update: (c) => {
            job.counters = { ...c };
          },
        },
        onStart: (runId, resumed) => {
          job.warehouseRunId = runId;
          job.resumed = resumed;
        },
        workers: this.o.workers,
        notify: this.o.notify,
        outputs: { sheets: this.o.sheets },
      });
      finishJob(job, started);
    } catch (err) {
      job.status = "failed";
      const code = err && typeof err === "object" && "code" in err ? String(err.code) : "ERROR";
      job.errors.push({ code, message: redact(err instanceof Error ? err.message : String(err)) });
    } finally {
      job.finishedAt = new Date().toISOString();
    }
  }

  private forgetOld(): void {
    const keep = this.o.keepFinished ?? 1000;
    const finished = [...this.jobs.values()].filter((j) => j.finishedAt !== undefined);
    for (const j of finished.slice(0, Math.max(0, finished.length - keep))) this.jobs.delete(j.id);
  }
}

/** A job as its run left it: counters, warnings and errors (redacted), the `sheet:` output's push. */
function finishJob(job: Job, { summary, outputs }: StartedRun): void {
  job.counters = { ...summary.counters };
  job.tables = summary.tables;
  job.creditsEstimated = summary.creditsEstimated;
  job.stopReason = summary.stopReason;
  job.warnings = [...summary.priceWarnings, ...summary.warnings].map(redact);
  job.errors = summary.failures.slice(0, 20).map((f) => ({ code: f.code, message: redact(f.message) }));
  if (outputs.notConfigured) {
    job.sheetPushes = [{ pipeline: job.pipeline, error: "not pushed: Google Sheets is not configured" }];
  } else {
    job.sheetPushes = outputs.pushes;
    for (const p of job.sheetPushes)
      if (p.error) job.errors.push({ code: "SHEETS", message: redact(p.error) });
  }
  job.status = summary.status;
}
