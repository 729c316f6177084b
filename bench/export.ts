/**
 * Figure 7: `skillsync export` of a SQLite table of one million rows to Parquet, in a child process
 * (export-child.ts) so that its time and peak RSS are the export's alone. The reference, same run:
 * the same export of a tenth of the rows (memory that does not grow with the rows gives a ratio
 * near 1). Targets: ≤ 30 s and < 300 MB (issue 33).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { openWarehouse } from "../connectors/warehouse/open.js";
import { loadPipeline } from "../engine/define/pipeline-file.js";
import { makeTables } from "../engine/run/runner.js";
import { migrateToLatest } from "../store/migrate.js";

export interface ExportRun {
  rows: number;
  seconds: number;
  /** Peak of the export process's RSS plus its children's (the SQLite reader), sampled every 50 ms. */
  peakRss: number;
  /** The process's own peak (getrusage), DuckDB included. */
  ownPeakRss: number;
  fileBytes: number;
}

export interface ExportFigure {
  rows: number;
  seconds: number;
  peakRss: number;
  reference: ExportRun;
  full: ExportRun;
}

const run = promisify(execFile);
const TABLE = "marketplace_search_results";

/** A SQLite warehouse whose marketplace table holds `rows` rows like the emulator's (five loads). */
async function seed(path: string, rows: number): Promise<void> {
  const w = await openWarehouse(path);
  try {
    await migrateToLatest(w);
    await makeTables(w, [loadPipeline("marketplace-search")]);
    if (w.raw.kind !== "sqlite") throw new Error("the export figure seeds a SQLite file");
    const db = w.raw.database;
    const columns = (
      db.prepare(`select name from pragma_table_info('${TABLE}')`).all() as { name: string }[]
    ).map((c) => c.name);
    const insert = db.prepare(
      `insert into ${TABLE} (${columns.join(", ")}) values (${columns.map(() => "?").join(", ")})`,
    );
    const value = (name: string, i: number): unknown => {
      switch (name) {
        case "keyword":
          return `keyword ${i % 500}`;
        case "page":
          return 1 + (i % 7);
        case "item_index":
        case "position":
          return i;
        case "observed_at":
        case "loaded_at":
          return new Date(Date.UTC(2026, 10, 1) + (i % 1000) * 60_000).toISOString();
        case "available_date":
          return i % 3 ? "2025-06-01" : null;
        case "price":
        case "old_price":
        case "rating":
          return Math.round(i * 13.7) / 100;
        case "ratings":
        case "monthly_sales_units":
          return i % 10_000;
        case "sponsored":
        case "snap_ebt_eligible":
          return i % 2;
        case "load_id":
          return 1 + Math.floor((i * 5) / rows);
        case "run_id":
          return `run-${Math.floor((i * 5) / rows)}`;
        case "asin":
          return `B0${String(i).padStart(8, "0")}`;
        default:
          return `${name} of product ${i}, a text of some length like the answers have`;
      }
    };
    const batch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) insert.run(...columns.map((c) => value(c, i)));
    });
    for (let i = 0; i < rows; i += 50_000) batch(i, Math.min(rows, i + 50_000));
  } finally {
    await w.close();
  }
}

async function child(script: string, path: string, out: string, rows: number): Promise<ExportRun> {
  const { stdout } = await run(process.execPath, [script, path, out, String(rows)], {
    maxBuffer: 1 << 20,
    timeout: 600_000,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as ExportRun;
}

/** `script`: export-child.js as compileForMemory (memory.ts) compiled it. */
export async function exportFigure(
  script: string,
  rows: number,
  log: (s: string) => void,
): Promise<ExportFigure> {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-bench-export-"));
  try {
    const small = join(dir, "small.db");
    const big = join(dir, "big.db");
    const tenth = Math.max(1, Math.round(rows / 10));
    log(`   seeding SQLite tables of ${rows} and ${tenth} rows…`);
    await seed(small, tenth);
    await seed(big, rows);
    const reference = await child(script, small, join(dir, "small.parquet"), tenth);
    const full = await child(script, big, join(dir, "big.parquet"), rows);
    return { rows, seconds: full.seconds, peakRss: full.peakRss, reference, full };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
