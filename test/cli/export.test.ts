import { execFile } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { tempDir } from "../helpers/temp-dir.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

const TABLE = "marketplace_search_results";

/** `skillsync …` as a real process: exit code, stdout, stderr. */
function skillsync(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, nodeEntry("cli/run.ts", ...args), { env: process.env }, (err, out, errText) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out, err: errText }),
    );
  });
}

/** DuckDB's own reading of a file: its rows, and its columns' names and types. */
async function duck(
  query: string,
): Promise<{ rows: Record<string, unknown>[]; columns: { name: string; type: string }[] }> {
  const instance = await DuckDBInstance.create(":memory:");
  const c = await instance.connect();
  try {
    const r = await c.runAndReadAll(query);
    return {
      rows: r.getRowObjectsJson() as Record<string, unknown>[],
      columns: r.columnNames().map((name, i) => ({ name, type: String(r.columnTypes()[i]) })),
    };
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

/** DuckDB's type for each pipeline type, as `skillsync export` writes Parquet (docs/export.md). */
const PARQUET_TYPES: Record<string, string> = {
  keyword: "VARCHAR",
  page: "BIGINT",
  item_index: "BIGINT",
  observed_at: "TIMESTAMP WITH TIME ZONE",
  position: "BIGINT",
  price: "DECIMAL(18,6)",
  rating: "DOUBLE",
  sponsored: "BOOLEAN",
  available_date: "DATE",
  load_id: "BIGINT",
  run_id: "VARCHAR",
  title: "VARCHAR",
};

describe.each(WAREHOUSE_KINDS)("skillsync export on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    async function loaded(keyword: string, db = freshWarehouseUrl(kind)) {
      const { emulator } = await emulatorWithClient();
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const run = await cli(
        ["run", "marketplace-search", "--db", db, "--param", `keyword=${keyword}`, "--json"],
        env,
      );
      expect(run.code).toBe(0);
      return { db, env, emulator };
    }

    const count = async (db: string, where = "") => {
      const q = await cli(["sql", `select count(*) as n from ${TABLE} ${where}`, "--db", db, "--json"]);
      return Number(JSON.parse(q.out)[0].n);
    };

    it("writes Parquet, CSV and JSON Lines that DuckDB reads back with the same rows, names and types", async () => {
      const { db } = await loaded("usb hub");
      const rows = await count(db);
      expect(rows).toBeGreaterThan(0);
      const names = Object.keys(
        JSON.parse((await cli(["sql", `select * from ${TABLE} limit 1`, "--db", db, "--json"])).out)[0],
      );
      const dir = tempDir("export");

      const parquet = join(dir, "m.parquet");
      // A real process once: the CLI as users start it, DuckDB loaded in it.
      const p = await skillsync(["export", TABLE, "--db", db, "--format", "parquet", "--out", parquet]);
      expect(p.err).toBe("");
      expect(p.code).toBe(0);
      expect(p.out).toContain(`${TABLE}: ${rows} row(s) → ${parquet}`);
      const back = await duck(`select * from read_parquet('${parquet}')`);
      expect(back.rows).toHaveLength(rows);
      expect(back.columns.map((c) => c.name)).toEqual(names);
      for (const c of back.columns)
        if (PARQUET_TYPES[c.name]) expect([c.name, c.type]).toEqual([c.name, PARQUET_TYPES[c.name]]);
      expect(back.rows.some((r) => typeof r["sponsored"] === "boolean")).toBe(true);

      const csv = join(dir, "m.csv");
      expect((await cli(["export", TABLE, "--db", db, "--format", "csv", "--out", csv])).code).toBe(0);
      const fromCsv = await duck(`select * from read_csv('${csv}', header = true)`);
      expect(fromCsv.rows).toHaveLength(rows);
      expect(fromCsv.columns.map((c) => c.name)).toEqual(names);
      expect(readFileSync(csv, "utf8").split("\n")[0]).toBe(names.join(","));

      const jsonl = join(dir, "m.jsonl");
      expect((await cli(["export", TABLE, "--db", db, "--format", "jsonl", "--out", jsonl])).code).toBe(0);
      const lines = readFileSync(jsonl, "utf8").trimEnd().split("\n");
      expect(lines).toHaveLength(rows);
      const first = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(Object.keys(first)).toEqual(names);
      expect(typeof first["sponsored"]).toBe("boolean");
      expect(typeof first["page"]).toBe("number");
      const fromJson = await duck(`select * from read_json('${jsonl}', format = 'newline_delimited')`);
      expect(fromJson.rows).toHaveLength(rows);

      // --sql: one query to one file; JSON comes out as text.
      const json = kind === "postgres" ? `jsonb_build_object('k', keyword)` : `json_object('k', keyword)`;
      const q = join(dir, "q.parquet");
      const s = await cli([
        "export",
        "--sql",
        `select keyword, count(*) as n, ${json} as j, max(price) as top from ${TABLE} group by keyword`,
        "--db",
        db,
        "--format",
        "parquet",
        "--out",
        q,
      ]);
      expect(s.code).toBe(0);
      const qb = await duck(`select * from read_parquet('${q}')`);
      expect(qb.columns).toEqual([
        { name: "keyword", type: "VARCHAR" },
        { name: "n", type: "BIGINT" },
        { name: "j", type: "VARCHAR" },
        // A numeric result on Postgres is a decimal; SQLite's computed column is typed by its values.
        { name: "top", type: kind === "postgres" ? "DECIMAL(18,6)" : "DOUBLE" },
      ]);
      expect(JSON.parse(String(qb.rows[0]!["j"]))).toEqual({ k: "usb hub" });
      expect(Number(qb.rows[0]!["n"])).toBe(rows);
      // Only the files asked for: no temporary or scratch file left beside them.
      expect(readdirSync(dir).sort()).toEqual(["m.csv", "m.jsonl", "m.parquet", "q.parquet"]);
    });

    it("a view's Parquet columns keep the types of the table columns they show (dates, timestamps, booleans, decimals)", async () => {
      const { db } = await loaded("usb hub");
      const w = await openWarehouse(db);
      try {
        // A view over a view: the types come through both.
        await sql`create view dated as select keyword, available_date, observed_at, sponsored, price, page, load_id from ${sql.table(TABLE)}`.execute(
          w.db,
        );
        await sql`create view dated_again as select d.*, upper(d.keyword) as shout from dated d`.execute(
          w.db,
        );
      } finally {
        await w.close();
      }
      const dir = tempDir("export");
      const r = await cli([
        "export",
        "dated_again",
        "marketplace_price_history",
        "--db",
        db,
        "--format",
        "parquet",
        "--out",
        dir,
      ]);
      expect(r.code).toBe(0);
      const own = await duck(`select * from read_parquet('${join(dir, "dated_again.parquet")}')`);
      expect(own.rows.length).toBeGreaterThan(0);
      const typed = Object.fromEntries(own.columns.map((c) => [c.name, c.type]));
      for (const name of [
        "keyword",
        "available_date",
        "observed_at",
        "sponsored",
        "price",
        "page",
        "load_id",
      ])
        expect([name, typed[name]]).toEqual([name, PARQUET_TYPES[name]]);
      expect(typed["shout"]).toBe("VARCHAR");
      const history = await duck(
        `select * from read_parquet('${join(dir, "marketplace_price_history.parquet")}')`,
      );
      const historyTypes = Object.fromEntries(history.columns.map((c) => [c.name, c.type]));
      expect(historyTypes["observed_at"]).toBe(PARQUET_TYPES["observed_at"]);
      expect(historyTypes["price"]).toBe(PARQUET_TYPES["price"]);
    });

    it("--since-last writes only the rows of newer loads, then nothing (the file left as it was)", async () => {
      const { db, env } = await loaded("usb hub");
      const dir = tempDir("export");
      const out = join(dir, "m.parquet");
      const args = ["export", TABLE, "--db", db, "--format", "parquet", "--out", out, "--since-last"];
      const first = await cli(args);
      expect(first.code).toBe(0);
      const all = await count(db);
      expect((await duck(`select count(*) as n from read_parquet('${out}')`)).rows[0]!["n"]).toBe(
        String(all),
      );

      const again = await cli(
        ["run", "marketplace-search", "--db", db, "--param", "keyword=lidar", "--json"],
        env,
      );
      expect(again.code).toBe(0);
      const newest = JSON.parse(
        (await cli(["sql", `select max(load_id) as l from ${TABLE}`, "--db", db, "--json"])).out,
      )[0].l;
      const expected = await count(db, `where load_id = ${Number(newest)}`);
      expect(expected).toBeGreaterThan(0);
      const second = await cli(args);
      expect(second.code).toBe(0);
      const back = await duck(
        `select distinct keyword, load_id, count(*) over () as n from read_parquet('${out}')`,
      );
      expect(back.rows).toEqual([{ keyword: "lidar", load_id: String(newest), n: String(expected) }]);

      const before = statSync(out);
      const third = await cli(args);
      expect(third.code).toBe(0);
      expect(third.out).toMatch(/nothing new since load \d+/);
      expect(statSync(out).mtimeMs).toBe(before.mtimeMs);
      expect(readdirSync(dir)).toEqual(["m.parquet"]);

      // Several tables to a folder: one file each, and a query without load_id is refused.
      const both = await cli([
        "export",
        TABLE,
        "marketplace_rank_history",
        "--db",
        db,
        "--format",
        "jsonl",
        "--out",
        dir,
      ]);
      expect(both.code).toBe(0);
      expect(readdirSync(dir).sort()).toEqual([
        "m.parquet",
        "marketplace_rank_history.jsonl",
        `${TABLE}.jsonl`,
      ]);
      const noLoad = await cli([
        "export",
        "--sql",
        `select keyword from ${TABLE}`,
        "--db",
        db,
        "--format",
        "csv",
        "--out",
        join(dir, "x.csv"),
        "--since-last",
      ]);
      expect(noLoad.code).toBe(2);
      expect(noLoad.err).toContain("--since-last needs a load_id column");
    });

    it("refuses bad input with exit 2 and writes nothing", async () => {
      const { db } = await loaded("usb hub");
      const dir = tempDir("export");
      const f = join(dir, "x.parquet");
      const cases: [string[], RegExp][] = [
        [
          ["export", "no_such_table", "--format", "parquet", "--out", f],
          /no table "no_such_table".*skillsync tables/,
        ],
        [["export", TABLE, "--format", "xlsx", "--out", f], /xlsx/],
        [["export", TABLE, "--sql", "select 1", "--format", "csv", "--out", f], /tables or --sql, not both/],
        [["export", TABLE, "--format", "csv"], /--out is required/],
        [["export", TABLE, "--format", "csv", "--out", join(dir, "missing", "x.csv")], /does not exist/],
        [["export", TABLE, "marketplace_rank_history", "--format", "csv", "--out", f], /existing folder/],
        [["export", "--sql", `delete from ${TABLE}`, "--format", "csv", "--out", f], /must be a read/],
      ];
      for (const [args, message] of cases) {
        const r = await cli([...args, "--db", db]);
        expect([args.join(" "), r.code]).toEqual([args.join(" "), 2]);
        expect(r.err).toMatch(message);
      }
      // One as a real process, to see the exit code the shell gets.
      expect((await cli(["export", "no_such_table", "--db", db, "--format", "csv", "--out", f])).code).toBe(
        2,
      );
      expect(readdirSync(dir)).toEqual([]);
    });
  });
});
