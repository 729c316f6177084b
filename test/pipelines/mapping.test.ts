import { describe, expect, it } from "vitest";
import { applyTransform, ConversionError, snakeCase, toColumn } from "../../pipelines/engine/convert.js";
import { compileMapping, type RecordContext } from "../../pipelines/engine/mapping.js";
import { recordsSchema } from "../../schema/pipeline.js";

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
    ]);
    expect(m.children[0]!.key).toEqual(["id", "position"]);
  });
});
