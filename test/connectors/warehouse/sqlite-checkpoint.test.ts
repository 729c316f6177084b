import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { cli } from "../../helpers/cli.js";
import { until } from "../../helpers/until.js";
import { freshWarehouseUrl } from "../../helpers/warehouses.js";

const driver = createRequire(import.meta.url).resolve("better-sqlite3");

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

/** What a copy of the database file alone holds, without its -wal. */
function copyAlone(path: string): { tables: string[]; count: (table: string) => number } {
  const copy = `${path}.copy`;
  copyFileSync(path, copy);
  const db = new SQLite(copy, { readonly: true });
  const tables = db
    .prepare("select name from sqlite_master where type = 'table' order by name")
    .pluck()
    .all() as string[];
  const counts = new Map(
    tables.map((t) => [t, db.prepare(`select count(*) from "${t}"`).pluck().get() as number]),
  );
  db.close();
  return { tables, count: (t) => counts.get(t) ?? -1 };
}

describe("a SQLite warehouse file is whole once a command closes it", { timeout: 120_000 }, () => {
  it("after `skillsync demo`, the .db file copied alone has every table and row", async () => {
    const path = freshWarehouseUrl("sqlite");
    const r = await cli(["demo", "--db", path]);
    expect(r.code, r.err).toBe(0);
    const alone = copyAlone(path);
    expect(alone.tables).toEqual(expect.arrayContaining(["marketplace_search_results", "skillsync_runs"]));
    const whole = new SQLite(path, { readonly: true });
    try {
      for (const table of ["marketplace_search_results", "patent_legal_status", "skillsync_calls"]) {
        const rows = whole.prepare(`select count(*) from "${table}"`).pluck().get() as number;
        expect(rows).toBeGreaterThan(0);
        expect(alone.count(table)).toBe(rows);
      }
    } finally {
      whole.close();
    }
  });

  it("closing neither waits for nor fails on another process writing the file", async () => {
    const path = freshWarehouseUrl("sqlite");
    const w = await openWarehouse(path);
    await sql`create table t (x integer)`.execute(w.db);
    await sql`insert into t values (1)`.execute(w.db);
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const D = require(${JSON.stringify(driver)});
         const db = new D(${JSON.stringify(path)});
         db.exec("begin immediate; insert into t values (2)");
         process.stdout.write("holding\\n");
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    children.push(holder);
    let out = "";
    holder.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    await until(async () => out.includes("holding"), 30_000, "the other process's write transaction");
    const started = performance.now();
    await w.close();
    // The warehouse's busy_timeout is 15 s: a checkpoint waiting for the writer would take that long.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
  });
});
