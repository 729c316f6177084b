import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { type FileColumn, openRowFile } from "../../../connectors/files/row-file.js";
import { tempDir } from "../../helpers/temp-dir.js";

const COLUMNS: FileColumn[] = [
  { name: "n", type: "integer" },
  { name: "x", type: "number" },
  { name: "ok", type: "boolean" },
  { name: "day", type: "date" },
  { name: "at", type: "timestamp" },
  { name: "j", type: "json" },
  { name: "t", type: "text" },
  { name: "b", type: "blob" },
];
const ROWS: unknown[][] = [
  [
    9223372036854775807n,
    1.5,
    1n,
    "2026-11-27",
    "2026-11-27T05:00:00.000Z",
    '{"a":[1,2]}',
    'comma, "quote"\nnew line',
    new Uint8Array([0, 255]),
  ],
  [-3, -0.25, false, null, null, { k: "v" }, "", null],
  [null, null, null, null, null, null, null, null],
];

async function duck(query: string) {
  const instance = await DuckDBInstance.create(":memory:");
  const c = await instance.connect();
  try {
    const r = await c.runAndReadAll(query);
    return {
      rows: r.getRowObjectsJson() as Record<string, unknown>[],
      types: r.columnTypes().map(String),
    };
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

describe("row files", () => {
  it("Parquet keeps every type, null apart from empty text, and leaves no scratch file", async () => {
    const dir = tempDir("rowfile");
    const path = join(dir, "x.parquet");
    const w = await openRowFile("parquet", path, COLUMNS);
    await w.write(ROWS);
    await w.finish();
    expect(readdirSync(dir)).toEqual(["x.parquet"]);
    const back = await duck(`select * from read_parquet('${path}')`);
    expect(back.types).toEqual([
      "BIGINT",
      "DOUBLE",
      "BOOLEAN",
      "DATE",
      "TIMESTAMP WITH TIME ZONE",
      "VARCHAR",
      "VARCHAR",
      "BLOB",
    ]);
    expect(back.rows[0]).toMatchObject({
      n: "9223372036854775807",
      x: 1.5,
      ok: true,
      day: "2026-11-27",
      j: '{"a":[1,2]}',
      t: 'comma, "quote"\nnew line',
    });
    expect(String(back.rows[0]!["at"])).toMatch(/^2026-11-27 05:00:00/);
    expect(back.rows[1]).toMatchObject({ n: "-3", ok: false, j: '{"k":"v"}', t: "", b: null, day: null });
    expect(Object.values(back.rows[2]!).every((v) => v === null)).toBe(true);
  });

  it("Parquet carries decimals as DECIMAL(18,6), made from their digits, not through a double", async () => {
    const dir = tempDir("rowfile");
    const path = join(dir, "m.parquet");
    const w = await openRowFile("parquet", path, [{ name: "m", type: "decimal" }]);
    await w.write([[19.99], [1e-6], ["1234567.89"], [0.1], [null]]);
    await w.finish();
    const back = await duck(
      `select m, cast(m as varchar) as text, sum(m) over () as total from read_parquet('${path}')`,
    );
    expect(back.types[0]).toBe("DECIMAL(18,6)");
    expect(back.rows.map((r) => r["text"])).toEqual([
      "19.990000",
      "0.000001",
      "1234567.890000",
      "0.100000",
      null,
    ]);
    // Exact sums, as the warehouse's numeric gives them.
    expect(String(back.rows[0]!["total"])).toBe("1234587.980001");
  });

  it("an empty Parquet file still has its columns; abort leaves nothing", async () => {
    const dir = tempDir("rowfile");
    const empty = join(dir, "empty.parquet");
    const w = await openRowFile("parquet", empty, COLUMNS);
    await w.finish();
    const back = await duck(`select * from read_parquet('${empty}')`);
    expect(back.rows).toEqual([]);
    expect(back.types).toHaveLength(COLUMNS.length);
    const gone = await openRowFile("parquet", join(dir, "gone.parquet"), COLUMNS);
    await gone.write(ROWS);
    await gone.abort();
    expect(readdirSync(dir)).toEqual(["empty.parquet"]);
  });

  it("CSV and JSON Lines carry the same values", async () => {
    const dir = tempDir("rowfile");
    const csv = join(dir, "x.csv");
    const c = await openRowFile("csv", csv, COLUMNS);
    await c.write(ROWS);
    await c.finish();
    const fromCsv = await duck(`select * from read_csv('${csv}', header = true, all_varchar = true)`);
    expect(fromCsv.rows[0]).toMatchObject({
      n: "9223372036854775807",
      ok: "true",
      t: 'comma, "quote"\nnew line',
    });
    expect(fromCsv.rows[1]).toMatchObject({ ok: "false", j: '{"k":"v"}' });

    const jsonl = join(dir, "x.jsonl");
    const j = await openRowFile("jsonl", jsonl, COLUMNS);
    await j.write(ROWS);
    await j.finish();
    const lines = readFileSync(jsonl, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('"n":9223372036854775807,');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      x: 1.5,
      ok: true,
      day: "2026-11-27",
      j: '{"a":[1,2]}',
      b: "AP8=",
    });
    expect(JSON.parse(lines[1]!)).toMatchObject({ n: -3, ok: false, t: "", j: '{"k":"v"}' });
  });
});
