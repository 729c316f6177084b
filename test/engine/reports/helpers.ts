import { sql } from "kysely";
import type { SkillClient } from "../../../connectors/skill-api/client.js";
import type { Warehouse } from "../../../connectors/warehouse/open.js";
import type { Emulator } from "../../../emulator/index.js";
import type { ParamValue } from "../../../engine/define/params.js";
import { type LoadedPipeline, loadPipeline } from "../../../engine/define/pipeline-file.js";
import { type RunSummary, runPipelines, type SkillCaller } from "../../../engine/run/runner.js";
import { bodyOf, storedRow } from "../../../store/chunks.js";
import { updateJob } from "../../../store/report-jobs.js";
import { forgetWindows } from "../../../store/windows-done.js";

export const CREATE_SIS = "marketplace-ads-sp-search-impression-share-report";
const CREATE_AUDIENCE = "marketplace-ads-sp-audience-report";
export const STATUS = "marketplace-ads-sp-insights-report-status";
export const DOWNLOAD = "marketplace-ads-sp-insights-report-download";
/** One report for the whole week (the pipelines ask one per day by default: `step: 1d`). */
export const RANGE = { start: ["2025-03-01"], end: ["2025-03-07"], step: ["range"] };

type Poll = NonNullable<LoadedPipeline["report"]>["poll"];
const FAST: Poll = { initial: "2ms", max: "10ms", factor: 2, timeout: "10s" };

/** A built-in report pipeline with polling fast enough for tests (the file, hence the run key, is the same). */
export function fast(name: string, poll: Partial<Poll> = {}): LoadedPipeline {
  const p = loadPipeline(name);
  return { ...p, report: { ...p.report!, poll: { ...FAST, ...poll } } };
}

export function run(
  warehouse: Warehouse,
  client: SkillCaller,
  pipeline: LoadedPipeline,
  params: Record<string, ParamValue[]>,
  signal?: AbortSignal,
): Promise<RunSummary> {
  return runPipelines({ warehouse, client, pipelines: [pipeline], params, signal });
}

/**
 * The real client with a tap after each answer (to stop the run at a precise stage, as a kill
 * would); nothing about the calls is changed.
 */
export function tapped(client: SkillClient, after: (slug: string, data: unknown) => void): SkillCaller {
  return {
    prepare: client.prepare.bind(client),
    async send(prepared, opts) {
      const r = await client.send(prepared, opts);
      after(prepared.slug, r.data);
      return r;
    },
  };
}

/** What the emulator saw: creates, polls and downloads charged, and whether any download repeated. */
export function ledgerOf(emu: Emulator) {
  const calls = emu.ledger().calls.filter((c) => c.credits > 0);
  const downloads = calls.filter((c) => c.slug === DOWNLOAD).map((c) => c.bodyHash);
  return {
    creates: calls.filter((c) => c.slug === CREATE_SIS || c.slug === CREATE_AUDIENCE).length,
    polls: calls.filter((c) => c.slug === STATUS).length,
    downloads: downloads.length,
    distinctDownloads: new Set(downloads).size,
    credits: calls.reduce((s, c) => s + c.credits, 0),
  };
}

export async function rows<T = Record<string, unknown>>(w: Warehouse, query: string): Promise<T[]> {
  return (await sql.raw<T>(query).execute(w.db)).rows;
}

export async function count(w: Warehouse, table: string): Promise<number> {
  const r = await rows<{ n: number }>(w, `select count(*) as n from ${table}`);
  return Number(r[0]?.n ?? 0);
}

export interface JobRow {
  id: number;
  pipeline: string;
  status: string;
  report_id: string | null;
  parts_loaded: unknown;
  parts_downloaded: unknown;
  rows_loaded: number;
  error: string | null;
}

export async function jobs(w: Warehouse): Promise<JobRow[]> {
  const list = await rows<JobRow>(w, "select * from skillsync_report_jobs order by id");
  const parse = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);
  return list.map((j) => ({
    ...j,
    parts_loaded: parse(j.parts_loaded),
    parts_downloaded: parse(j.parts_downloaded),
  }));
}

/** Every report row exactly once: no (report, part, row) twice. */
export async function duplicates(w: Warehouse, table: string): Promise<number> {
  const r = await rows<{ n: number }>(
    w,
    `select count(*) as n from (select report_id, report_part, report_row from ${table}
     group by report_id, report_part, report_row having count(*) > 1) d`,
  );
  return Number(r[0]?.n ?? 0);
}

/**
 * As a crash between the store and the load leaves the first job: its parts downloaded and stored,
 * not loaded (`redownload`: as a crash before the store leaves it, nothing downloaded) — and its
 * date window not recorded done.
 */
export async function rewind(w: Warehouse, table: string, redownload = false): Promise<void> {
  await w.db.deleteFrom(table).execute();
  const [job] = await jobs(w);
  await forgetWindows(w.db, job!.pipeline);
  await updateJob(w.db, job!.id, {
    status: "downloading",
    partsLoaded: [],
    rowsLoaded: 0,
    finishedAt: null,
    ...(redownload ? { partsDownloaded: [] } : {}),
  });
}

/** The gzipped body stored for a request, joined whole from its pieces when it is kept in pieces. */
export async function storedBody(w: Warehouse, hash: string): Promise<Buffer | undefined> {
  const row = await storedRow(w.db, hash);
  return row && bodyOf(w.db, hash, row);
}
