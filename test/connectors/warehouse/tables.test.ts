import { sql } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { ensureTable } from "../../../connectors/warehouse/tables.js";
import { loadResponse } from "../../../engine/load/load-response.js";
import { compileMapping } from "../../../engine/normalize/mapping.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { firstCall, pipelineFrom, rows } from "../../engine/fixtures.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

/** A parent with an object child (declared columns) and a list of plain values. */
const yaml = (mode: string) => `name: parts
skill: patent-core-bibliography
description: One part per shelf and number.
records:
  path: data
  table: parts
  key: [shelf, pn]
  mode: ${mode}
  columns:
    shelf: { type: text, description: Where the part is kept. }
    pn: text
    price: { type: decimal, description: Price in USD. }
  indexes: [[price]]
  children:
    - { path: people, table: part_people, description: One person of a part., columns: { name: text } }
    - { path: tags, table: part_tags }
`;

const data = (price: number, people: string[]) => ({
  data: [{ shelf: "A", pn: "P1", price, people: people.map((name) => ({ name })), tags: ["x", "y"] }],
});

describe.each(WAREHOUSE_KINDS)("keys and comments of new tables on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      await migrateToLatest(w);
      return () => w.close();
    });

    async function load(mode: string, price: number, people: string[], hash: string) {
      const pipeline = pipelineFrom(yaml(mode));
      const mapping = compileMapping(pipeline.records);
      for (const t of [mapping.table, ...mapping.children]) await ensureTable(w, t);
      const c = { pipeline, params: {}, mapping };
      const at = new Date(Date.UTC(2026, 0, 1 + Number(hash.slice(1)))).toISOString();
      await loadResponse(w, c, firstCall("patent-core-bibliography", hash), data(price, people), at, "run-1");
    }

    /** Primary keys as a fresh read of the catalog gives them. */
    const primaryKeys = async () => (await w.adapter.readCatalog(w.db)).primaryKeys;

    it("a merge parent and its children get primary keys (NOT NULL), no unique index beside them", async () => {
      await load("merge", 19.99, ["ann", "bo"], "h1");
      const pks = await primaryKeys();
      expect(pks.get("parts")).toEqual(["shelf", "pn"]);
      expect(pks.get("part_people")).toEqual(["shelf", "pn", "position"]);
      expect(pks.get("part_tags")).toEqual(["shelf", "pn", "position"]);
      const catalog = await w.adapter.readCatalog(w.db);
      // The key's index and the child's parent-key index would repeat the primary key's own.
      expect([...catalog.indexes].filter((i) => /^part/.test(i) && /_key$|_shelf_pn_idx$/.test(i))).toEqual(
        [],
      );
      expect(catalog.indexes.has("parts_price_idx")).toBe(true);
      await expect(
        sql`insert into parts (shelf, pn) values (${null}, ${"P9"})`.execute(w.db),
      ).rejects.toThrow(/not.null/i);
      // Upserts on the primary key: a second load updates the row and replaces the children.
      await load("merge", 25.5, ["cy"], "h2");
      expect(await rows(w, "select shelf, pn, price from parts")).toEqual([
        { shelf: "A", pn: "P1", price: 25.5 },
      ]);
      expect(await rows(w, "select name, position from part_people")).toEqual([{ name: "cy", position: 1 }]);
    });

    it("an object child has no value column; a list of plain values keeps it", async () => {
      await load("merge", 1, ["ann"], "h1");
      const names = async (t: string) => (await w.adapter.columns(w.db, t)).map((c) => c.name);
      expect(await names("part_people")).not.toContain("value");
      expect(await names("part_tags")).toContain("value");
      expect(await rows(w, "select value from part_tags order by position")).toEqual([
        { value: "x" },
        { value: "y" },
      ]);
    });

    it("decimal money is stored as a decimal and read back as numbers", async () => {
      await load("merge", 0.1, [], "h1");
      const [col] = (await w.adapter.columns(w.db, "parts")).filter((c) => c.name === "price");
      expect(col?.type).toBe("decimal");
      // Exact arithmetic where the database has it: 0.1 + 0.2 is 0.3, not 0.30000000000000004.
      const [sum] = await rows<{ s: number }>(w, "select price + 0.2 as s from parts");
      // SQLite has no exact decimal: its NUMERIC affinity keeps a double.
      expect(Number(sum!.s)).toBe(kind === "postgres" ? 0.3 : 0.1 + 0.2);
    });

    it("a merge table made with its primary key becomes history: rows, indexes and views kept", async () => {
      await load("merge", 10, ["ann", "bo"], "h1");
      await sql.raw("create view cheap_parts as select pn, price from parts where price < 100").execute(w.db);
      await load("history", 12, ["ann"], "h2");
      const pks = await primaryKeys();
      expect(pks.has("parts")).toBe(false);
      expect(pks.has("part_people")).toBe(false);
      const catalog = await w.adapter.readCatalog(w.db);
      for (const i of ["parts_version", "parts_current_key", "part_people_version", "parts_price_idx"])
        expect(catalog.indexes.has(i), i).toBe(true);
      // The first version (from the merge row) closed, the new one current, one current per key.
      const versions = await rows<{ price: number; valid_to: unknown }>(
        w,
        "select price, valid_to from parts order by valid_from",
      );
      expect(versions.map((v) => [v.price, v.valid_to === null])).toEqual([
        [10, false],
        [12, true],
      ]);
      expect(await rows(w, "select pn, price from cheap_parts order by price")).toEqual([
        { pn: "P1", price: 10 },
        { pn: "P1", price: 12 },
      ]);
      await expect(sql`update parts set valid_to = null where price = 10`.execute(w.db)).rejects.toThrow(
        /unique|UNIQUE/i,
      );
    });

    it("a table made before keys keeps its unique index and gets no primary key", async () => {
      await sql.raw("create table parts (shelf text, pn text, run_id text)").execute(w.db);
      await sql.raw("create unique index parts_key on parts (shelf, pn)").execute(w.db);
      await load("merge", 3, ["ann"], "h1");
      await load("merge", 4, ["ann"], "h2");
      expect((await primaryKeys()).has("parts")).toBe(false);
      expect(await rows(w, "select price from parts")).toEqual([{ price: 4 }]);
      // Its new child has its own primary key, but no parent key to refer to.
      expect((await primaryKeys()).get("part_people")).toEqual(["shelf", "pn", "position"]);
      if (w.adapter.foreignKeys) expect(await foreignKeys(w)).toEqual([]);
    });
  });
});

/** The foreign keys of the warehouse's schema: child table → parent table, with their rules. */
async function foreignKeys(w: Warehouse) {
  return rows<{ child: string; parent: string; delete_rule: string; deferred: string }>(
    w,
    `select tc.table_name as child, ccu.table_name as parent, rc.delete_rule,
       tc.is_deferrable || '/' || tc.initially_deferred as deferred
     from information_schema.table_constraints tc
     join information_schema.referential_constraints rc
       on rc.constraint_name = tc.constraint_name and rc.constraint_schema = tc.constraint_schema
     join information_schema.constraint_column_usage ccu
       on ccu.constraint_name = rc.unique_constraint_name and ccu.constraint_schema = rc.unique_constraint_schema
     where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = current_schema()
     group by tc.table_name, ccu.table_name, rc.delete_rule, tc.is_deferrable, tc.initially_deferred
     order by 1`,
  );
}

describe.skipIf(unavailable("postgres"))("foreign keys and comments on postgres", () => {
  let w: Warehouse;
  let freshUrl: string;
  beforeEach(async () => {
    freshUrl = freshWarehouseUrl("postgres");
    w = await openWarehouse(freshUrl);
    await migrateToLatest(w);
    return () => w.close();
  });

  async function make(mode: string, text = yaml(mode)) {
    const mapping = compileMapping(pipelineFrom(text).records);
    for (const t of [mapping.table, ...mapping.children]) await ensureTable(w, t);
    return mapping;
  }

  it("merge children refer to their parent (cascade, deferred); append children do not", async () => {
    await make("merge");
    expect(await foreignKeys(w)).toEqual([
      { child: "part_people", parent: "parts", delete_rule: "CASCADE", deferred: "YES/YES" },
      { child: "part_tags", parent: "parts", delete_rule: "CASCADE", deferred: "YES/YES" },
    ]);
    await sql`insert into parts (shelf, pn) values ('A', 'P1')`.execute(w.db);
    await sql`insert into part_people (shelf, pn, position) values ('A', 'P1', 1)`.execute(w.db);
    // A child row of no parent fails at the commit; a parent's delete takes its children along.
    await expect(
      w.db
        .transaction()
        .execute((trx) =>
          sql`insert into part_tags (shelf, pn, position) values ('B', 'P2', 1)`.execute(trx),
        ),
    ).rejects.toThrow(/foreign key/);
    await sql`delete from parts`.execute(w.db);
    expect(await rows(w, "select * from part_people")).toEqual([]);
  });

  it("history children refer to their parent's version (key and valid_from)", async () => {
    await make("history");
    const fks = await rows<{ columns: string }>(
      w,
      `select string_agg(kcu.column_name, ',' order by kcu.ordinal_position) as columns
       from information_schema.key_column_usage kcu
       join information_schema.table_constraints tc using (constraint_schema, constraint_name)
       where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = current_schema()
         and tc.table_name = 'part_people'
       group by kcu.constraint_name`,
    );
    expect(fks).toEqual([{ columns: "shelf,pn,valid_from" }]);
  });

  it("a switch from merge to history drops the primary keys and the foreign keys on them", async () => {
    await make("merge");
    expect(await foreignKeys(w)).toHaveLength(2);
    await make("history");
    expect(await foreignKeys(w)).toEqual([]);
    const pks = (await w.adapter.readCatalog(w.db)).primaryKeys;
    expect(["parts", "part_people", "part_tags"].filter((t) => pks.has(t))).toEqual([]);
  });

  it("comments every table and column, and sets them again when a description changes", async () => {
    const m = await make("merge");
    const comments = async () =>
      new Map(
        (
          await rows<{ t: string; c: string | null; d: string | null }>(
            w,
            `select c.relname as t, a.attname as c, col_description(c.oid, a.attnum) as d
             from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
             join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
             where c.relname like 'part%' and c.relkind = 'r'
             union all
             select c.relname, null, obj_description(c.oid, 'pg_class') from pg_class c
             join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
             where c.relname like 'part%' and c.relkind = 'r'`,
          )
        ).map((r) => [r.c === null ? r.t : `${r.t}.${r.c}`, r.d]),
      );
    const got = await comments();
    const expected = [m.table, ...m.children].flatMap((t) => [
      t.name,
      ...t.columns.map((c) => `${t.name}.${c.name}`),
    ]);
    expect([...got.keys()].sort()).toEqual(expected.sort());
    // Every table and column has one but those the file declares without a description.
    const missing = [...got].filter(([, v]) => !v).map(([k]) => k);
    expect(missing.sort()).toEqual(["part_people.name", "parts.pn"]);
    expect(got.get("parts")).toBe(
      "One part per shelf and number. One row per shelf, pn (primary key); a later load updates it.",
    );
    expect(got.get("parts.price")).toBe("Price in USD.");
    expect(got.get("part_people")).toMatch(
      /^One person of a part\. Each row belongs to the parts row with the same shelf, pn/,
    );
    expect(got.get("part_people.shelf")).toBe("The parts row this row belongs to: its shelf.");
    // Another connection (a later run) reads the catalog afresh and sets only what changed.
    const w2 = await openWarehouse(freshUrl);
    try {
      const edited = yaml("merge").replace("Price in USD.", "Price in euros.");
      await ensureTable(w2, compileMapping(pipelineFrom(edited).records).table);
    } finally {
      await w2.close();
    }
    expect((await comments()).get("parts.price")).toBe("Price in euros.");
    // A description is text, whatever it holds: quotes and SQL in it are kept as written.
    const hostile = `Price's "unit" \\ '; drop table parts; --`;
    const w3 = await openWarehouse(freshUrl);
    try {
      const edited = yaml("merge").replace("Price in USD.", JSON.stringify(hostile));
      await ensureTable(w3, compileMapping(pipelineFrom(edited).records).table);
    } finally {
      await w3.close();
    }
    expect((await comments()).get("parts.price")).toBe(hostile);
    // The table is still there, and as it was.
    expect(Number((await rows<{ n: unknown }>(w, "select count(*) as n from parts"))[0]!.n)).toBe(0);
  });
});
