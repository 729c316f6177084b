import { type Command, Option } from "commander";
import { sql } from "kysely";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { listTables } from "../../connectors/warehouse/tables.js";
import { ValidationError } from "../../core/errors.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { readOnlyQuery } from "../../engine/publish/query.js";
import { isToolkitTable } from "../../engine/publish/read-table.js";
import { makeTables, tablesMadeBy } from "../../engine/run/make-tables.js";
import { checkPipelineSql } from "../../engine/run/sql-trial.js";
import { migrateToLatest } from "../../store/migrate.js";
import { type ReaderSetup, setUpReader } from "../../store/reader-login.js";
import { dbOption, withReadDb, withWarehouse } from "../context.js";
import { printCsv, printJson, printLine, printTable } from "../output.js";

interface DbFlags {
  db?: string;
  json?: boolean;
}

/** `--timeout` in seconds (decimals allowed), strictly: 0.001 to 86400. */
function timeoutSeconds(value: string): number {
  const v = value.trim();
  const n = /^(0|[1-9][0-9]*)(\.[0-9]{1,3})?$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= 0.001 && n <= 86_400)) {
    throw new ValidationError("--timeout", [
      { path: [], message: `"${value}" is not a number of seconds (0.001 to 86400)` },
    ]);
  }
  return Math.round(n * 1000);
}

export async function tableCounts(w: Warehouse): Promise<{ table: string; rows: number }[]> {
  const out: { table: string; rows: number }[] = [];
  for (const t of await listTables(w)) {
    const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(t)}`.execute(w.db);
    out.push({ table: t, rows: Number(r.rows[0]?.n ?? 0) });
  }
  return out;
}

/** What `migrate` says of the reader role that read paths log in as on Postgres (docs/read-only.md). */
function readerLine(r: ReaderSetup): string {
  if ("refused" in r) {
    return `note: no reader role could be made (${r.refused}); read paths need one: run migrate as a role with CREATEROLE, or give --read-db (docs/read-only.md)`;
  }
  const line = `read paths (sql, input sql:, table views, MCP) log in as role ${r.role}${r.created ? " (created)" : ""}`;
  if (r.walWriters === "revoked") return line;
  return `${line}\nnote: any role may still call pg_logical_emit_message, which writes to the WAL outside a transaction; only a superuser can revoke it (docs/read-only.md)`;
}

/** Read-only commands open only a warehouse that exists. */
const READS = { existing: true };

export function registerWarehouseCommands(program: Command): void {
  registerMigrate(program);
  registerTables(program);
  registerSql(program);
}

/** `migrate`: the toolkit's tables, and with `--pipelines` those pipelines' tables and views. */
function registerMigrate(program: Command): void {
  program
    .command("migrate")
    .description(
      "create or upgrade the warehouse's own tables; with --pipelines, make those pipelines' tables and views ahead of their first run",
    )
    .option("--db <url>", "warehouse URL (default DATABASE_URL or ./skillsync.db)")
    .option("--pipelines <name...>", "built-in pipeline names or pipeline files whose tables to make now")
    .action((flags: DbFlags & { pipelines?: string[] }) => {
      // Every file is read and checked before the warehouse is opened: a typo makes nothing.
      const pipelines = (flags.pipelines ?? []).map((ref) => loadPipeline(ref));
      return withWarehouse(dbOption(flags), async (w) => {
        // Their views too, before anything is made: a view that does not work makes nothing.
        await checkPipelineSql(w, pipelines);
        const r = await migrateToLatest(w);
        printLine(r.applied.length ? `applied: ${r.applied.join(", ")}` : "already up to date");
        if (pipelines.length) {
          await makeTables(w, pipelines);
          printLine(
            `tables and views of ${pipelines.map((p) => p.name).join(", ")}: ${tablesMadeBy(pipelines).join(", ")}`,
          );
        }
        if (w.adapter.loginRoles) printLine(readerLine(await setUpReader(w)));
      });
    });
}

/** `tables`: the warehouse's tables with their row counts. */
function registerTables(program: Command): void {
  program
    .command("tables")
    .description("list the warehouse's tables with their row counts")
    .option("--db <url>", "warehouse URL")
    .option("--all", "include the toolkit's own skillsync_* tables")
    .option("--json", "print JSON")
    .action((flags: DbFlags & { all?: boolean }) =>
      withWarehouse(
        dbOption(flags),
        async (w) => {
          await migrateToLatest(w);
          const rows = (await tableCounts(w)).filter((t) => flags.all || !isToolkitTable(t.table));
          if (flags.json) printJson(rows);
          else printTable(rows);
        },
        READS,
      ),
    );
}

/** `sql`: one read-only statement, printed as a table, CSV or JSON. */
function registerSql(program: Command): void {
  withReadDb(program.command("sql"))
    .description("run a read-only SQL query and print the result")
    .argument("<query>", "one SQL statement")
    .option("--db <url>", "warehouse URL")
    .option("--json", "print JSON (as --format json)")
    .addOption(new Option("--format <format>", "how to print the rows").choices(["table", "csv", "json"]))
    .option("--timeout <seconds>", "time limit for the statement (default 30, or SKILLSYNC_SQL_TIMEOUT_MS)")
    .action(
      (
        query: string,
        flags: DbFlags & { format?: "table" | "csv" | "json"; timeout?: string; readDb?: string },
      ) =>
        withWarehouse(
          dbOption(flags),
          async (w) => {
            const timeoutMs = flags.timeout === undefined ? undefined : timeoutSeconds(flags.timeout);
            const { rows } = await readOnlyQuery(w, query, { timeoutMs });
            const format = flags.format ?? (flags.json ? "json" : "table");
            if (format === "json") printJson(rows);
            else if (format === "csv") printCsv(rows);
            else if (rows.length) printTable(rows);
            else printLine("(no rows)");
          },
          { ...READS, readUrl: flags.readDb },
        ),
    );
}
