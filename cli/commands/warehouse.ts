import type { Command } from "commander";
import { type Kysely, sql } from "kysely";
import { migrateToLatest } from "../../connectors/warehouse/migrate.js";
import type { AnyDB, Warehouse } from "../../connectors/warehouse/open.js";
import { ValidationError } from "../../core/errors.js";
import { ensureBuiltinTables } from "../../pipelines/engine/runner.js";
import { listTables } from "../../pipelines/engine/tables.js";
import { dbOption, withWarehouse } from "../context.js";
import { printJson, printLine, printTable } from "../output.js";

interface DbFlags {
  db?: string;
  json?: boolean;
}

/**
 * Runs one statement read-only: Postgres in a READ ONLY transaction, SQLite with query_only on,
 * so `skillsync sql` can never change the warehouse.
 */
export async function readOnlyQuery(w: Warehouse, text: string): Promise<Record<string, unknown>[]> {
  const run = async (db: Kysely<AnyDB>) => (await sql.raw<Record<string, unknown>>(text).execute(db)).rows;
  try {
    if (w.adapter.dialect === "postgres") {
      return await w.db.transaction().execute(async (trx) => {
        await sql`set transaction read only`.execute(trx);
        return run(trx);
      });
    }
    await sql`pragma query_only = 1`.execute(w.db);
    try {
      return await run(w.db);
    } finally {
      await sql`pragma query_only = 0`.execute(w.db);
    }
  } catch (err) {
    throw new ValidationError("SQL query", [
      { path: [], message: err instanceof Error ? err.message : String(err) },
    ]);
  }
}

export async function tableCounts(w: Warehouse): Promise<{ table: string; rows: number }[]> {
  const out: { table: string; rows: number }[] = [];
  for (const t of await listTables(w)) {
    const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(t)}`.execute(w.db);
    out.push({ table: t, rows: Number(r.rows[0]?.n ?? 0) });
  }
  return out;
}

export function registerWarehouseCommands(program: Command): void {
  program
    .command("migrate")
    .description(
      "create or upgrade the warehouse: the toolkit's tables and the built-in pipelines' tables and views",
    )
    .option("--db <url>", "warehouse URL (default DATABASE_URL or ./skillsync.db)")
    .action((flags: DbFlags) =>
      withWarehouse(dbOption(flags), async (w) => {
        const r = await migrateToLatest(w);
        await ensureBuiltinTables(w);
        printLine(r.applied.length ? `applied: ${r.applied.join(", ")}` : "already up to date");
      }),
    );

  program
    .command("tables")
    .description("list the warehouse's tables with their row counts")
    .option("--db <url>", "warehouse URL")
    .option("--all", "include the toolkit's own skillsync_* tables")
    .option("--json", "print JSON")
    .action((flags: DbFlags & { all?: boolean }) =>
      withWarehouse(dbOption(flags), async (w) => {
        await migrateToLatest(w);
        const rows = (await tableCounts(w)).filter((t) => flags.all || !t.table.startsWith("skillsync_"));
        if (flags.json) printJson(rows);
        else printTable(rows);
      }),
    );

  program
    .command("sql")
    .description("run a read-only SQL query and print the result")
    .argument("<query>", "one SQL statement")
    .option("--db <url>", "warehouse URL")
    .option("--json", "print JSON")
    .action((query: string, flags: DbFlags) =>
      withWarehouse(dbOption(flags), async (w) => {
        const rows = await readOnlyQuery(w, query);
        if (flags.json) printJson(rows);
        else if (rows.length) printTable(rows);
        else printLine("(no rows)");
      }),
    );
}
