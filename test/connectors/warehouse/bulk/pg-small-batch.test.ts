import { sql } from "kysely";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BulkRow, WarehouseTx, WriteHow } from "../../../../connectors/warehouse/bulk.js";
import { openWarehouse, type Warehouse } from "../../../../connectors/warehouse/open.js";
import { pgTransaction } from "../../../../connectors/warehouse/postgres/transaction.js";
import { ensureTable } from "../../../../connectors/warehouse/tables.js";
import type { TableDef } from "../../../../schema/table.js";
import { freshWarehouseUrl, unavailable } from "../../../helpers/warehouses.js";

/**
 * Postgres writes a small batch as one multi-row INSERT … VALUES and a large one through COPY:
 * both must leave the same table for the same rows. Each case writes the rows once per path, the
 * COPY path forced (`smallBatchValues: 0`), and compares the tables' jsonb text row by row.
 */

const COLUMNS: TableDef["columns"] = [
  { name: "id", type: "integer" },
  { name: "t", type: "text" },
  { name: "j", type: "json" },
  { name: "b", type: "boolean" },
  { name: "n", type: "number" },
  { name: "big", type: "integer" },
  { name: "d", type: "date" },
  { name: "ts", type: "timestamp" },
];

const def = (name: string, key = ["id"], unique = true): TableDef => ({
  name,
  key,
  unique,
  columns: COLUMNS,
});

const TEXTS = [
  "plain",
  "",
  "a,b",
  'say "hi"',
  "line1\nline2",
  "back\\slash",
  "\\.",
  "\\N",
  "NULL",
  "日本 🚀",
];

function tricky(): BulkRow[] {
  const rows: BulkRow[] = TEXTS.map((t, i) => ({
    id: i + 1,
    t,
    j: i % 3 === 0 ? { s: t, list: [t, null, true, 2.5], nested: { 'k,"': t } } : i % 3 === 1 ? [t] : t,
    b: [true, false, 1, 0, "true", "false", "t", "yes"][i % 8],
    n: [0.1, -1.5e-10, 1e21, 123456.789, 0, Number.NaN, Number.POSITIVE_INFINITY][i % 7],
    big: i % 2 ? 9_007_199_254_740_991 : -42,
    d: `2024-02-${String((i % 28) + 1).padStart(2, "0")}`,
    // A Date object as well as ISO text: pg would bind a Date in local time, COPY as ISO.
    ts: i % 2 ? new Date(Date.UTC(2024, 1, 29, 23, 59, 58, i)) : `2024-02-29T23:59:58.00${i}+02:00`,
  }));
  rows.push({ id: 100, t: null, j: null, b: null, n: null, big: null, d: null, ts: null });
  rows.push({ id: 101 }); // absent columns are NULL too
  return rows;
}

describe.skipIf(unavailable("postgres"))("Postgres small batches (INSERT … VALUES) against COPY", () => {
  let w: Warehouse;
  let pool: pg.Pool;
  let sent: string[];
  const original = pg.Client.prototype.query;
  beforeEach(async () => {
    w = await openWarehouse(freshWarehouseUrl("postgres"));
    if (w.raw.kind !== "postgres") throw new Error("postgres expected");
    pool = w.raw.pool;
    sent = [];
    // Every statement a pool client sends, to see which path ran and how many round trips.
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const a = args[0] as string | { text?: string } | undefined;
      sent.push(typeof a === "string" ? a : (a?.text ?? "(copy stream)"));
      return (original as (...x: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    return () => w.close();
  });
  afterEach(() => {
    pg.Client.prototype.query = original;
  });

  const tx = <T>(fn: (tx: WarehouseTx) => Promise<T>, copy = false) =>
    pgTransaction(pool, w.adapter, fn, copy ? { smallBatchValues: 0 } : {});

  async function contents(table: string, orderBy = "id"): Promise<string[]> {
    const r = await sql<{
      r: string;
    }>`select to_jsonb(x)::text as r from ${sql.table(table)} x order by ${sql.raw(orderBy)}`.execute(w.db);
    return r.rows.map((x) => x.r);
  }

  /** Writes each batch in its own transaction into `<name>_copy` (COPY) and `<name>_values`; returns both counts and contents. */
  async function bothPaths(base: TableDef, batches: BulkRow[][], how: WriteHow) {
    const out: { counts: number[]; rows: string[] }[] = [];
    for (const path of ["copy", "values"] as const) {
      const d = { ...base, name: `${base.name}_${path}` };
      await ensureTable(w, d);
      const counts: number[] = [];
      for (const b of batches) counts.push(await tx((x) => x.bulk.write(d, b, how), path === "copy"));
      out.push({ counts, rows: await contents(d.name) });
    }
    return { copy: out[0]!, values: out[1]! };
  }

  it.each(["insert", "upsert"] as const)(
    "%s: every column type, NULLs and tricky text are stored alike",
    async (how) => {
      const { copy, values } = await bothPaths(def("tricky", ["id"], how === "upsert"), [tricky()], how);
      expect(values).toEqual(copy);
      expect(copy.rows).toHaveLength(tricky().length);
      const one = JSON.parse(values.rows[1]!);
      expect(one).toMatchObject({ id: 2, t: "", j: [""], b: false, big: 9_007_199_254_740_991 });
    },
  );

  it('upsert: a key twice in a batch keeps its last row, on both paths (also `1` and `"1"`, and a two-column key)', async () => {
    const batches = [
      [
        { id: 1, t: "first", n: 1 },
        { id: 2, t: "only" },
        { id: "1", t: "second", b: true },
        { id: 3, t: "x" },
        { id: 1, t: "last", j: { a: 1 } },
      ],
      [
        { id: 3, t: "updated", d: "2024-01-31" },
        { id: 3, t: "updated again" },
        { id: 4, t: "new" },
      ],
    ];
    const one = await bothPaths(def("dupes"), batches, "upsert");
    expect(one.values).toEqual(one.copy);
    expect(one.copy.counts).toEqual([3, 2]);
    expect(one.values.rows.map((r) => JSON.parse(r).t)).toEqual(["last", "only", "updated again", "new"]);

    const rows = [
      { id: 1, t: "a", big: 1 },
      { id: 2, t: "a", big: 2 },
      { id: 3, t: "a", big: 1 },
      { id: 4, t: "b", big: 1 },
      { id: 5, t: "b", big: 1 },
    ];
    const two = await bothPaths(def("pairs", ["t", "big"]), [rows, rows.slice(0, 2)], "upsert");
    expect(two.values).toEqual(two.copy);
    expect(two.values.rows.map((r) => JSON.parse(r).id)).toEqual([1, 2, 5]);
  });

  it("an upsert with nothing but key columns does nothing on a known key, like COPY's merge", async () => {
    const keyOnly: TableDef = { name: "keys", key: ["id"], columns: [{ name: "id", type: "integer" }] };
    const r = await bothPaths(
      keyOnly,
      [
        [{ id: 1 }, { id: 2 }, { id: 1 }],
        [{ id: 2 }, { id: 3 }],
      ],
      "upsert",
    );
    expect(r.values).toEqual(r.copy);
    expect(r.copy.counts).toEqual([2, 1]);
  });

  it("parameters take the table's own column types, as COPY does (timestamp without time zone, integer, numeric)", async () => {
    for (const path of ["copy", "values"]) {
      await sql`create table ${sql.table(`own_${path}`)} (id integer primary key, t varchar(20), n numeric, b boolean, d date, ts timestamp, j json, big bigint)`.execute(
        w.db,
      );
    }
    const own = (path: string) => def(`own_${path}`);
    const rows = tricky().map((r) => ({
      ...r,
      n: Number.isFinite(r["n"]) ? r["n"] : 1,
      t: r["t"] === null ? null : "t",
    }));
    for (const path of ["copy", "values"]) {
      await tx((x) => x.bulk.write(own(path), rows, "upsert"), path === "copy");
    }
    expect(await contents("own_values")).toEqual(await contents("own_copy"));
    // The offset of "…+02:00" is dropped by timestamp's input, not converted through timestamptz.
    const ts = await sql<{ ts: string }>`select ts::text as ts from own_values where id = 1`.execute(w.db);
    expect(ts.rows[0]!.ts).toBe("2024-02-29 23:59:58");
  });

  it("child deletes then rewrites: the same table on both paths", async () => {
    const child = (name: string): TableDef => ({
      name,
      key: ["pn", "position"],
      columns: [
        { name: "pn", type: "text" },
        { name: "position", type: "integer" },
        { name: "tag", type: "text" },
      ],
    });
    for (const path of ["copy", "values"] as const) {
      const d = child(`kids_${path}`);
      await ensureTable(w, d);
      const copy = path === "copy";
      await tx(
        (x) =>
          x.bulk.write(
            d,
            ["A", "B", "C"].flatMap((pn) =>
              [1, 2, 3].map((position) => ({ pn, position, tag: `${pn}${position}` })),
            ),
            "upsert",
          ),
        copy,
      );
      sent = [];
      await tx(async (x) => {
        await x.bulk.deleteMatching(d, ["pn"], [{ pn: "A" }, { pn: "C" }, { pn: "A" }]);
        await x.bulk.write(d, [{ pn: "A", position: 1, tag: "new" }], "upsert");
      }, copy);
      if (!copy) expect(sent.filter((s) => s.startsWith("delete"))).toHaveLength(1);
    }
    expect(await contents("kids_values", "pn, position")).toEqual(
      await contents("kids_copy", "pn, position"),
    );
    expect((await contents("kids_values", "pn, position")).map((r) => JSON.parse(r).tag)).toEqual([
      "new",
      "B1",
      "B2",
      "B3",
    ]);
  });

  it("a small batch is ONE statement and BEGIN travels with it; a large one still goes through COPY", async () => {
    const d = def("paths");
    await ensureTable(w, d);
    sent = [];
    const small = tricky();
    await tx((x) => x.bulk.write(d, small, "upsert"));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^insert into "paths" .* values \(\$1, .* on conflict \("id"\) do update set/s);
    expect(sent[1]).toBe("commit");

    sent = [];
    const large = Array.from({ length: 1000 }, (_, i) => ({ id: i + 1, t: `v${i}` }));
    expect(await tx((x) => x.bulk.write(d, large, "upsert"))).toBe(1000);
    expect(sent[0]).toBe("begin");
    expect(sent.some((s) => s === "(copy stream)" || s.startsWith("copy"))).toBe(true);
  });

  it("a transaction that runs nothing sends nothing; one whose first statement fails rolls back and the client stays usable", async () => {
    await tx(async () => {});
    await expect(tx(async () => Promise.reject(new Error("before anything")))).rejects.toThrow(
      "before anything",
    );
    expect(sent).toEqual([]);

    const d = def("first_fails");
    await ensureTable(w, d);
    await expect(
      tx(async (x) => {
        await x.bulk.write(d, [{ id: 1, d: "not a date" }], "insert");
      }),
    ).rejects.toThrow(/date/);
    expect(sent.at(-1)).toBe("rollback");
    // The first statement's BEGIN really opened the transaction: it is rolled back with the rest.
    await expect(
      tx(async (x) => {
        await x.bulk.write(d, [{ id: 2 }], "insert");
        await x.db.insertInto(d.name).values({ id: 3 }).execute();
        await x.bulk.write(d, [{ id: 2 }], "insert");
      }),
    ).rejects.toThrow();
    expect(await contents(d.name)).toEqual([]);
    // A parameterless first statement (own BEGIN, simple protocol) and then rows.
    await tx(async (x) => {
      await sql`select 1`.execute(x.db);
      await x.bulk.write(d, [{ id: 4 }], "insert");
    });
    expect((await contents(d.name)).map((r) => JSON.parse(r).id)).toEqual([4]);
    for (let i = 0; i < 12; i++) await tx((x) => x.bulk.write(d, [{ id: 10 + i }], "insert"));
    expect(await contents(d.name)).toHaveLength(13);
  });
});
