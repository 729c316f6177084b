import type { Kysely } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { redact } from "../core/redact.js";

/**
 * creating → pending → downloading → done, or failed (the provider said so), timeout (still
 * pollable later), lost (the create may have been billed but its reportId is unknown), refused
 * (the create was refused without a charge; a later run may create again).
 */
type JobStatus = "creating" | "pending" | "downloading" | "done" | "failed" | "timeout" | "lost" | "refused";

/** A completed part as the status operation listed it; only `documentToken` is relied on. */
export interface ReportPart {
  documentToken: string;
  [member: string]: unknown;
}

export interface ReportJob {
  id: number;
  pipeline: string;
  pipelineFile: string | null;
  skill: string;
  connectionId: number | null;
  requestHash: string;
  request: Record<string, unknown>;
  params: Record<string, unknown>;
  reportId: string | null;
  status: JobStatus;
  providerStatus: string | null;
  parts: ReportPart[];
  /** 0-based indexes of parts whose download response is stored. */
  partsDownloaded: number[];
  /** 0-based indexes of parts whose rows are in the table. */
  partsLoaded: number[];
  rowsLoaded: number;
  attempts: number;
  polls: number;
  credits: number;
  runId: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  polledAt: string | null;
  finishedAt: string | null;
}

const TABLE = "skillsync_report_jobs";
const now = () => new Date().toISOString();
const json = (v: unknown) => JSON.stringify(v);
// jsonb comes back parsed from Postgres, as text from SQLite.
const parsed = <T>(v: unknown, fallback: T): T =>
  v === null || v === undefined ? fallback : typeof v === "string" ? (JSON.parse(v) as T) : (v as T);

export function toJob(r: Record<string, unknown>): ReportJob {
  return {
    id: Number(r["id"]),
    pipeline: String(r["pipeline"]),
    pipelineFile: (r["pipeline_file"] as string | null) ?? null,
    skill: String(r["skill"]),
    connectionId: r["connection_id"] === null ? null : Number(r["connection_id"]),
    requestHash: String(r["request_hash"]),
    request: parsed(r["request"], {}),
    params: parsed(r["params"], {}),
    reportId: (r["report_id"] as string | null) ?? null,
    status: r["status"] as JobStatus,
    providerStatus: (r["provider_status"] as string | null) ?? null,
    parts: parsed(r["parts"], []),
    partsDownloaded: parsed(r["parts_downloaded"], []),
    partsLoaded: parsed(r["parts_loaded"], []),
    rowsLoaded: Number(r["rows_loaded"] ?? 0),
    attempts: Number(r["attempts"] ?? 0),
    polls: Number(r["polls"] ?? 0),
    credits: Number(r["credits"] ?? 0),
    runId: (r["run_id"] as string | null) ?? null,
    error: (r["error"] as string | null) ?? null,
    createdAt: String(r["created_at"]),
    updatedAt: String(r["updated_at"]),
    polledAt: (r["polled_at"] as string | null) ?? null,
    finishedAt: (r["finished_at"] as string | null) ?? null,
  };
}

export interface NewJob {
  pipeline: string;
  pipelineFile: string | undefined;
  skill: string;
  requestHash: string;
  request: Record<string, unknown>;
  params: Record<string, unknown>;
  runId: string;
  credits: number;
}

/** Writes the job (status `creating`) inside the create call's reservation transaction. */
export async function insertJob(db: Kysely<AnyDB>, j: NewJob): Promise<number> {
  const connection = Number(j.request["connectionId"]);
  const row = await db
    .insertInto(TABLE)
    .values({
      pipeline: j.pipeline,
      pipeline_file: j.pipelineFile ?? null,
      skill: j.skill,
      connection_id: Number.isSafeInteger(connection) ? connection : null,
      request_hash: j.requestHash,
      request: json(j.request),
      params: redact(json(j.params)),
      status: "creating",
      parts: json([]),
      parts_downloaded: json([]),
      parts_loaded: json([]),
      attempts: 1,
      credits: j.credits,
      run_id: j.runId,
      created_at: now(),
      updated_at: now(),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export interface JobChange {
  status?: JobStatus;
  reportId?: string;
  providerStatus?: string | null;
  parts?: ReportPart[];
  partsDownloaded?: number[];
  partsLoaded?: number[];
  rowsLoaded?: number;
  attempts?: number;
  polls?: number;
  credits?: number;
  runId?: string;
  error?: string | null;
  polledAt?: string;
  finishedAt?: string | null;
}

const COLUMN: Record<keyof JobChange, string> = {
  status: "status",
  reportId: "report_id",
  providerStatus: "provider_status",
  parts: "parts",
  partsDownloaded: "parts_downloaded",
  partsLoaded: "parts_loaded",
  rowsLoaded: "rows_loaded",
  attempts: "attempts",
  polls: "polls",
  credits: "credits",
  runId: "run_id",
  error: "error",
  polledAt: "polled_at",
  finishedAt: "finished_at",
};

export async function updateJob(db: Kysely<AnyDB>, id: number, change: JobChange): Promise<void> {
  const set: Record<string, unknown> = { updated_at: now() };
  for (const [k, v] of Object.entries(change) as [keyof JobChange, unknown][]) {
    if (v === undefined) continue;
    set[COLUMN[k]] = Array.isArray(v)
      ? json(v)
      : k === "error" && typeof v === "string"
        ? redact(v).slice(0, 2000)
        : v;
  }
  await db.updateTable(TABLE).set(set).where("id", "=", id).execute();
}

/** Reads a job; inside a transaction, `lock` first writes to the row so no other writer holds it. */
export async function getJob(db: Kysely<AnyDB>, id: number, lock = false): Promise<ReportJob | undefined> {
  if (lock) await db.updateTable(TABLE).set({ updated_at: now() }).where("id", "=", id).execute();
  const row = await db.selectFrom(TABLE).selectAll().where("id", "=", id).executeTakeFirst();
  return row ? toJob(row) : undefined;
}

/** Every report id created for one request (a subquery: the reports a `replace` load supersedes). */
export function reportIdsOf(db: Kysely<AnyDB>, requestHash: string) {
  return db
    .selectFrom("skillsync_report_jobs")
    .select("report_id")
    .where("request_hash", "=", requestHash)
    .where("report_id", "is not", null);
}
