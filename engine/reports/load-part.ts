import type { Readable } from "node:stream";
import type { Kysely } from "kysely";
import type { AnyDB, Warehouse, WarehouseTx } from "../../connectors/warehouse/open.js";
import { ensureTable } from "../../connectors/warehouse/tables.js";
import { countLoad } from "../../store/loads.js";
import { markLoaded } from "../../store/part-loads.js";
import { insertRejects } from "../../store/rejects.js";
import { getJob, updateJob } from "../../store/report-jobs.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { writeRows } from "../load/write-rows.js";
import { type CsvBatch, REPORT_META_COLUMNS, readCsv } from "../normalize/csv.js";
import { columnTypes } from "../normalize/infer-members.js";
import type { RecordContext } from "../normalize/row.js";
import { type CsvTable, planCsvTable } from "./csv-table.js";

/** Rows written per INSERT statement batch; all batches of a part share one transaction. */
const LOAD_BATCH_ROWS = 1000;

export interface PartToLoad {
  warehouse: Warehouse;
  pipeline: LoadedPipeline;
  jobId: number;
  reportId: string;
  /** 0-based. */
  part: number;
  /** The part's CSV text, or a stream of it. */
  content: string | Readable;
  /** The download call's identity, for load markers and rejects. */
  requestHash: string;
  context: RecordContext;
}

export interface PartLoaded {
  rows: number;
  rejected: number;
  /** The part was already loaded (by an earlier run or another process): nothing written. */
  skipped: boolean;
}

/**
 * Loads one CSV part: the header decides the columns (new ones added before the transaction),
 * then every row, in INSERT batches, together with the part's done mark, in ONE transaction. A
 * crash leaves the part either fully loaded and marked, or not at all.
 *
 * @example const r = await loadPart({ warehouse, pipeline, jobId: 1, reportId: "rpt-1", part: 0, content, requestHash, context });
 */
export async function loadPart(p: PartToLoad): Promise<PartLoaded> {
  const w = p.warehouse;
  const records = p.pipeline.records;
  const reserved = [...REPORT_META_COLUMNS, ...(records.extra ? [records.extra] : [])];
  const batches = readCsv(p.content, LOAD_BATCH_ROWS, reserved);
  const first = await batches.next();
  const table = first.done
    ? undefined
    : planCsvTable(
        records,
        first.value.header,
        first.value.columns,
        first.value.rows,
        await columnTypes(w, records.table),
      );
  // DDL outside the row transaction: SQLite has one connection, and new columns are additive anyway.
  if (table) await ensureTable(w, table.def);

  const written: Written = { rows: 0, rejected: 0 };
  const skipped = await w.transaction(async (tx) => {
    const trx = tx.db;
    const job = await getJob(trx, p.jobId, true);
    if (!job || job.partsLoaded.includes(p.part)) return true;
    // No table only for a part without a header: nothing to write.
    if (table) {
      if (!first.done) await writeBatch(tx, p, table, first.value, written);
      for await (const b of batches) await writeBatch(tx, p, table, b, written);
    }
    const rows = written.rows;
    await markPartLoaded(trx, p, job.partsLoaded, job.rowsLoaded + rows, rows);
    const loadId = p.context.loadId;
    if (loadId != null)
      await countLoad(trx, loadId, { rowsInserted: rows, versionsNew: 0, unchanged: 0, closed: 0 });
    return false;
  });
  if (skipped) await batches.return(undefined);
  return { rows: skipped ? 0 : written.rows, rejected: skipped ? 0 : written.rejected, skipped };
}

/** Rows written and records rejected so far in the part's transaction. */
interface Written {
  rows: number;
  rejected: number;
}

/** One batch of CSV records: marked with the report, part and row, normalised, written; rejects stored. */
async function writeBatch(tx: WarehouseTx, p: PartToLoad, table: CsvTable, b: CsvBatch, written: Written) {
  // In place: the batch's records are not read again, and a copy per row is what fills V8's old space.
  const input = b.rows.map((r, i) => {
    const rec = table.clean(r);
    rec["__report_id"] = p.reportId;
    rec["__report_part"] = p.part + 1;
    rec["__report_row"] = b.rowNumbers[i];
    return rec;
  });
  const n = table.mapping.normalise(input, p.context);
  const mode = table.mapping.mode;
  // The pipeline schema refuses `history` for report pipelines: a report's rows are its parts'.
  if (mode === "history") throw new Error("a report pipeline cannot load in mode history");
  written.rows += await writeRows(tx, table.def, n.rows.get(table.def.name) ?? [], mode);
  const rejects = [
    ...n.rejects,
    ...b.malformed.map((m) => ({ table: table.def.name, reason: m.reason, record: m.cells })),
  ];
  written.rejected += rejects.length;
  await insertRejects(
    tx.db,
    p.context.runId,
    p.pipeline.name,
    rejects.map((r) => ({ ...r, hash: p.requestHash })),
  );
}

async function markPartLoaded(
  trx: Kysely<AnyDB>,
  p: PartToLoad,
  loaded: number[],
  total: number,
  rows: number,
): Promise<void> {
  const partsLoaded = [...new Set([...loaded, p.part])].sort((a, b) => a - b);
  await updateJob(trx, p.jobId, { partsLoaded, rowsLoaded: total });
  await markLoaded(trx, [{ runId: p.context.runId, pipeline: p.pipeline.name, hash: p.requestHash, rows }]);
}
