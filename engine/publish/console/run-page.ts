import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { outboxOfRun, type RunReject, rejectsOfRun } from "../../../store/console-run-page.js";
import type { LoadRow } from "../../../store/loads.js";
import { readerWarehouse } from "../../../store/reader-db.js";
import { type RunDetail, runDetail } from "../../../store/run-detail.js";
import { runRowView } from "../run-and-pipeline-views.js";

/** An event the run sent (one per webhook or address it went to; which one is never shown). */
interface RunEvent {
  eventId: string;
  kind: string;
  /** delivered; failed: its last try failed (tried again until given up); pending: not tried yet. */
  state: "delivered" | "failed" | "pending";
  attempts: number;
  createdAt: string;
  deliveredAt: string | null;
  /** The last failed try's error, short and redacted when written (store/outbox-claim.ts). */
  error: string | null;
}

export interface RunPage {
  run: ReturnType<typeof runRowView>;
  warnings: string[];
  /** Per pipeline, as `skillsync runs ID` counts them (store/run-detail.ts). */
  pipelines: RunDetail["pipelines"];
  loads: LoadRow[];
  rejects: { total: number; reasons: { reason: string; count: number }[]; examples: RunReject[] };
  /** The failed and ambiguous calls' codes and messages, per pipeline. */
  errors: { pipeline: string; code: string; message: string; count: number }[];
  events: RunEvent[];
}

const REJECT_EXAMPLES = 50;

/** The run's rejected records by reason, most frequent first, and the first few of them. */
async function rejectsOf(r: Warehouse, id: string): Promise<RunPage["rejects"]> {
  const { reasons, examples } = await rejectsOfRun(r, id, REJECT_EXAMPLES);
  return { total: reasons.reduce((sum, x) => sum + x.count, 0), reasons, examples };
}

/** The run's events, in the order they were written; never their target (a URL's hash). */
async function eventsOf(r: Warehouse, id: string): Promise<RunEvent[]> {
  return (await outboxOfRun(r, id)).map((e) => {
    const delivered = e.deliveredAt !== null;
    return {
      eventId: e.eventId,
      kind: e.kind,
      state: delivered ? "delivered" : e.lastError ? "failed" : "pending",
      attempts: e.attempts,
      createdAt: e.createdAt,
      deliveredAt: e.deliveredAt,
      error: delivered || !e.lastError ? null : e.lastError,
    };
  });
}

/**
 * A run's page: the run as every reader shows it, what `skillsync runs ID` shows per pipeline (the
 * store's own run detail, read as the reader), its loads, rejects by reason with the first
 * examples, the failed calls' errors and the events it sent. Undefined when there is no such run.
 */
export async function readRunPage(w: Warehouse, id: string): Promise<RunPage | undefined> {
  const r = readerWarehouse(w, "console run page");
  const detail = await runDetail(r, id);
  if (!detail) return undefined;
  const [rejects, events] = await Promise.all([rejectsOf(r, id), eventsOf(r, id)]);
  return {
    run: runRowView(detail.run),
    warnings: detail.warnings,
    pipelines: detail.pipelines,
    loads: detail.loads,
    rejects,
    errors: detail.pipelines.flatMap((p) => p.failures.map((f) => ({ pipeline: p.pipeline, ...f }))),
    events,
  };
}
