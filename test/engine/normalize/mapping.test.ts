import { describe, expect, it } from "vitest";
import { applyTransform, ConversionError, snakeCase, toColumn } from "../../../engine/normalize/convert.js";
import { compileMapping } from "../../../engine/normalize/mapping.js";
import type { RecordContext } from "../../../engine/normalize/row.js";
import { recordsSchema } from "../../../schema/pipeline.js";
import { prng } from "../../reliability/support/prng.js";

const ctx: RecordContext = {
  input: "in",
  request: { keyword: "kw", page: 2 },
  params: {},
  observedAt: "2026-01-01T00:00:00.000Z",
  runId: "r1",
  skill: "s",
};

describe("types and transforms", () => {
  it("converts what it can and refuses what it cannot", () => {
    expect(applyTransform("$1,234.50", "money")).toBe(1234.5);
    expect(applyTransform("1.234,50 €", "money")).toBe(1234.5);
    expect(applyTransform("12.5%", "percent")).toBe(12.5);
    expect(applyTransform(20210304, "yyyymmdd")).toBe("2021-03-04");
    expect(() => applyTransform(20210230, "yyyymmdd")).toThrow(ConversionError);
    expect(applyTransform([{ name: "A, Inc." }, { name: "B" }], "join")).toBe("A, Inc.; B");
    expect(toColumn("42", "integer")).toBe(42);
    expect(() => toColumn("4.2", "integer")).toThrow(ConversionError);
    expect(toColumn("true", "boolean")).toBe(true);
    expect(toColumn("2021-03-04T10:00:00Z", "date")).toBe("2021-03-04");
    expect(toColumn(1700000000000, "timestamp")).toBe("2023-11-14T22:13:20.000Z");
    expect(snakeCase("citedBy3y")).toBe("cited_by3y");
    expect(snakeCase("monthlySalesUnits")).toBe("monthly_sales_units");
  });
});

describe("compiled mappings", () => {
  const spec = recordsSchema.parse({
    path: "items",
    table: "t",
    key: ["id"],
    columns: {
      id: { from: "pn" },
      price: { from: "price", type: "number", transform: "money" },
      when: { from: "d", type: "date", transform: "yyyymmdd" },
      keyword: { from: "$request.keyword" },
      idx: { from: "$index", type: "integer" },
    },
    children: [
      { path: "people", table: "t_people", columns: { name: "text" } },
      {
        path: [
          { path: "main", set: { role: "main" } },
          { path: "more", set: { role: "more" } },
        ],
        table: "t_codes",
        valueColumn: "code",
      },
    ],
  });
  const m = compileMapping(spec);

  it("types rows, keeps unnamed members as JSON, links children by key and position", () => {
    const n = m.normalise(
      {
        items: [
          {
            pn: "A1",
            price: "$3.50",
            d: 20200101,
            keyword: "kw",
            surprise: { x: 1 },
            people: [{ name: 'Ö, "Q"', role: "x" }],
            main: "H01",
            more: ["H02", "H03"],
          },
        ],
      },
      ctx,
    );
    const [row] = n.rows.get("t")!;
    expect(row).toMatchObject({
      id: "A1",
      price: 3.5,
      when: "2020-01-01",
      keyword: "kw",
      idx: 1,
      run_id: "r1",
    });
    expect(row!["extra"]).toEqual({ surprise: { x: 1 } });
    expect(n.rows.get("t_people")).toEqual([
      expect.objectContaining({ id: "A1", position: 1, name: 'Ö, "Q"', extra: { role: "x" } }),
    ]);
    expect(n.rows.get("t_codes")!.map((r) => [r["role"], r["code"], r["position"]])).toEqual([
      ["main", "H01", 1],
      ["more", "H02", 2],
      ["more", "H03", 3],
    ]);
  });

  it("rejects a record that cannot be typed, with the reason, and keeps the others", () => {
    const n = m.normalise({ items: [{ pn: "A", price: "free" }, { pn: null }, { pn: "B" }] }, ctx);
    expect(n.rows.get("t")!.map((r) => r["id"])).toEqual(["B"]);
    expect(n.rejects.map((r) => r.reason)).toEqual([
      expect.stringMatching(/t\.price: "free" is not an amount/),
      expect.stringMatching(/key column id is empty/),
    ]);
  });

  it("declares the table with metadata columns and the unique key", () => {
    expect(m.table.columns.map((c) => c.name)).toEqual([
      "id",
      "price",
      "when",
      "keyword",
      "idx",
      "extra",
      "run_id",
      "loaded_at",
      "load_id",
    ]);
    expect(m.children[0]!.key).toEqual(["id", "position"]);
  });

  it("gives an object child no value column; a list of plain values and a named valueColumn keep theirs", () => {
    const columnsOf = (name: string) => m.children.find((c) => c.name === name)!.columns.map((c) => c.name);
    expect(columnsOf("t_people")).not.toContain("value");
    expect(
      Object.keys(
        m.normalise({ items: [{ pn: "A", people: [{ name: "x" }] }] }, ctx).rows.get("t_people")![0]!,
      ),
    ).not.toContain("value");
    expect(columnsOf("t_codes")).toContain("code");
    const plain = compileMapping(
      recordsSchema.parse({
        path: "items",
        table: "p",
        key: ["id"],
        columns: { id: "text" },
        children: [{ path: "tags", table: "p_tags" }],
      }),
    );
    expect(plain.children[0]!.columns.map((c) => c.name)).toContain("value");
    expect(
      plain
        .normalise({ items: [{ id: "A", tags: ["x", 2] }] }, ctx)
        .rows.get("p_tags")!
        .map((r) => r["value"]),
    ).toEqual(["x", "2"]);
  });

  it("describes every column, the table's relation by mode, and a child's parent", () => {
    for (const t of [m.table, ...m.children])
      for (const c of t.columns.filter(
        (col) => !["id", "price", "when", "keyword", "idx", "name"].includes(col.name),
      ))
        expect(c.description, `${t.name}.${c.name}`).toMatch(/\w/);
    expect(m.table.description).toBe("One row per id (primary key); a later load updates it.");
    expect(m.children[0]!.parent).toEqual({ table: "t", columns: ["id"] });
    expect(m.children[1]!.columns.find((c) => c.name === "role")!.description).toBe(
      "Which list of the parent record the row came from: main (main), more (more).",
    );
    const history = compileMapping(recordsSchema.parse({ ...spec, mode: "history" }));
    expect(history.children[0]!.parent).toEqual({ table: "t", columns: ["id", "valid_from"] });
    const append = compileMapping(recordsSchema.parse({ ...spec, mode: "append" }));
    expect(append.children[0]!.parent).toBeUndefined();
    expect(append.children[0]!.description).toMatch(/no foreign key/);
  });
});

describe("the generated row builder", () => {
  // Every column kind: plain members of each type, a nested path, a member read under its own
  // snake_case name, a transform, context values and the record's position.
  const spec = recordsSchema.parse({
    path: "items",
    table: "g",
    mode: "append",
    columns: {
      t: "text",
      i: "integer",
      n: "number",
      b: "boolean",
      d: "date",
      ts: "timestamp",
      j: "json",
      deep: { from: "a.b", type: "integer" },
      snake_name: "text",
      money: { from: "m", type: "number", transform: "money" },
      kw: { from: "$request.keyword" },
      at: { from: "$index", type: "integer" },
    },
  });
  const VALUES = [
    undefined,
    null,
    "",
    "x",
    "42",
    "4.5",
    "true",
    "2024-02-29",
    "2023-02-29",
    "20240229",
    "2024-05-01T10:00:00Z",
    0,
    1,
    -3,
    2.5,
    20240229,
    Number.MAX_SAFE_INTEGER,
    true,
    false,
    [1, "a"],
    { name: "n" },
  ];
  const MEMBERS = ["t", "i", "n", "b", "d", "ts", "j", "snakeName", "snake_name", "m", "kw", "extra1"];

  // The oracle: each column's value as `toColumn` (and the transform) types it, read as documented.
  function expected(record: Record<string, unknown>, index: number): Record<string, unknown> | string {
    const out: Record<string, unknown> = {};
    const at = (v: unknown) => v;
    const read: [string, unknown, Parameters<typeof toColumn>[1]][] = [
      ["t", record["t"], "text"],
      ["i", record["i"], "integer"],
      ["n", record["n"], "number"],
      ["b", record["b"], "boolean"],
      ["d", record["d"], "date"],
      ["ts", record["ts"], "timestamp"],
      ["j", record["j"], "json"],
      ["deep", at((record["a"] as Record<string, unknown> | undefined)?.["b"]), "integer"],
      ["snake_name", record["snakeName"] === undefined ? record["snake_name"] : record["snakeName"], "text"],
    ];
    try {
      for (const [name, v, type] of read) {
        try {
          out[name] = toColumn(v, type);
        } catch (err) {
          throw new ConversionError(`column g.${name}: ${(err as Error).message}`);
        }
      }
      try {
        out["money"] = toColumn(applyTransform(record["m"], "money"), "number");
      } catch (err) {
        throw new ConversionError(`column g.money: ${(err as Error).message}`);
      }
    } catch (err) {
      return (err as Error).message;
    }
    out["kw"] = "kw";
    out["at"] = index + 1;
    const extra = Object.fromEntries(
      Object.entries(record).filter(
        ([k, v]) =>
          v !== undefined && !["t", "i", "n", "b", "d", "ts", "j", "snakeName", "m", "kw", "at"].includes(k),
      ),
    );
    out["extra"] = Object.keys(extra).length ? extra : null;
    out["run_id"] = "r1";
    out["loaded_at"] = ctx.observedAt;
    out["load_id"] = null;
    return out;
  }

  it("types every record as toColumn would, and names the column of a value it cannot type", () => {
    const random = prng(7);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const records = Array.from({ length: 3000 }, () => {
      const r: Record<string, unknown> = {};
      for (const m of MEMBERS) if (random() < 0.8) r[m] = pick(VALUES);
      if (random() < 0.5) r["a"] = random() < 0.8 ? { b: pick(VALUES) } : pick(VALUES);
      return r;
    });
    const m = compileMapping(spec);
    const n = m.normalise({ items: records }, ctx);
    const rows = n.rows.get("g")!;
    let r = 0;
    let j = 0;
    records.forEach((record, index) => {
      const want = expected(record, index);
      if (typeof want === "string") {
        expect(n.rejects[j++]).toMatchObject({ reason: want, record });
      } else {
        expect(rows[r++]).toStrictEqual(want);
      }
    });
    expect(r).toBe(rows.length);
    expect(j).toBe(n.rejects.length);
    // A nested path and a member read under its snake_case name consume nothing: they stay in extra.
    // Both outcomes are exercised, not just one.
    expect(rows.length).toBeGreaterThan(50);
    expect(n.rejects.length).toBeGreaterThan(50);
  });

  it("reads a record that is not an object as having no members", () => {
    const m = compileMapping(spec);
    const rows = m.normalise({ items: ["just text", 7] }, ctx).rows.get("g")!;
    expect(rows.map((row) => [row["t"], row["extra"], row["at"]])).toEqual([
      [null, null, 1],
      [null, null, 2],
    ]);
  });
});
