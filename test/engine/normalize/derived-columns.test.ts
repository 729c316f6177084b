import { describe, expect, it } from "vitest";
import { getPath } from "../../../engine/define/member-path.js";
import { compileMapping } from "../../../engine/normalize/mapping.js";
import type { RecordContext } from "../../../engine/normalize/row.js";
import { recordsSchema } from "../../../schema/pipeline.js";

const ctx: RecordContext = {
  input: "in",
  request: {},
  params: {},
  observedAt: "2026-01-01T00:00:00.000Z",
  runId: "r1",
  skill: "s",
};

/** The rows of table `t` that `columns` make of `records`, and the rejects. */
function load(columns: Record<string, unknown>, records: unknown[]) {
  const m = compileMapping(recordsSchema.parse({ path: "items", table: "t", key: ["id"], columns }));
  const out = m.normalise({ items: records }, ctx);
  return { rows: out.rows.get("t") ?? [], rejects: out.rejects };
}

describe("list paths: a[].b", () => {
  const record = {
    claims: [{ date: "2020-03-01" }, { date: null }, { other: 1 }, { date: "2019-12-31" }],
    groups: [{ items: [{ n: 1 }, { n: 2 }] }, { items: [{ n: 3 }] }, { items: "none" }],
  };

  it("reads a member of each element, leaving out elements without it", () => {
    expect(getPath(record, "claims[].date")).toEqual(["2020-03-01", null, "2019-12-31"]);
    expect(getPath(record, "claims[]")).toEqual(record.claims);
  });

  it("goes through a list at each [], one flat list", () => {
    expect(getPath(record, "groups[].items[].n")).toEqual([1, 2, 3]);
  });

  it("gives undefined where the member is no list", () => {
    expect(getPath(record, "missing[].date")).toBeUndefined();
    expect(getPath({ claims: "x" }, "claims[].date")).toBeUndefined();
  });

  it("loads into a json column, the members it reads staying in extra", () => {
    const { rows } = load({ id: "text", dates: { from: "claims[].date", type: "json" } }, [
      { id: "a", claims: [{ date: "d1" }, { date: "d2" }] },
    ]);
    expect(rows[0]?.["dates"]).toEqual(["d1", "d2"]);
    expect(rows[0]?.["extra"]).toEqual({ claims: [{ date: "d1" }, { date: "d2" }] });
  });
});

describe("min and max", () => {
  const columns = {
    id: "text",
    first_day: { from: "claims[].date", type: "date", transform: "min" },
    last_day: { from: "claims[].date", type: "date", transform: "max" },
    low: { from: "scores", type: "number", transform: "min" },
    high: { from: "scores", type: "number", transform: "max" },
  };

  it("compare the values as their column's type, skipping nulls", () => {
    const { rows, rejects } = load(columns, [
      {
        id: "a",
        // yyyymmdd numbers and ISO days in one list: compared as days, not as text.
        claims: [{ date: 20200301 }, { date: null }, { date: "2019-12-31" }, { date: "2020-01-15" }],
        // As text "9" would be the greatest and "10" the least.
        scores: [9, "10", null, 2.5],
      },
    ]);
    expect(rejects).toEqual([]);
    expect(rows[0]).toMatchObject({ first_day: "2019-12-31", last_day: "2020-03-01", low: 2.5, high: 10 });
  });

  it("give null for an empty or missing list and take a single value as itself", () => {
    const { rows } = load(columns, [
      { id: "a", claims: [], scores: null },
      { id: "b", scores: 7 },
    ]);
    expect(rows.map((r) => [r["first_day"], r["low"], r["high"]])).toEqual([
      [null, null, null],
      [null, 7, 7],
    ]);
  });

  it("reject the record when a value cannot be typed", () => {
    const { rows, rejects } = load(columns, [{ id: "a", claims: [{ date: "soon" }] }]);
    expect(rows).toEqual([]);
    expect(rejects[0]?.reason).toMatch(/first_day.*"soon" is not a date/);
  });
});

describe("when: a value only for records whose member matches", () => {
  const columns = {
    id: "text",
    grant_date: {
      from: "published",
      type: "date",
      transform: "yyyymmdd",
      when: { member: "kind", matches: "^([BC][0-9]?|P[23])$" },
    },
    nested: { from: "id", when: { member: "meta.flag", matches: "^yes$" } },
  };

  it("reads the value when the member matches, and null when it does not or is missing", () => {
    const { rows, rejects } = load(columns, [
      { id: "a", kind: "B2", published: 20210304, meta: { flag: "yes" } },
      { id: "b", kind: "A1", published: 20210304, meta: { flag: "no" } },
      { id: "c", kind: "P1", published: 20210304 },
      { id: "d", published: 20210304 },
      { id: "e", kind: "P3", published: 20220101 },
    ]);
    expect(rejects).toEqual([]);
    expect(rows.map((r) => [r["id"], r["grant_date"], r["nested"]])).toEqual([
      ["a", "2021-03-04", "a"],
      ["b", null, null],
      ["c", null, null],
      ["d", null, null],
      ["e", "2022-01-01", null],
    ]);
  });

  it("does not read (nor reject on) a value it leaves out", () => {
    const { rows, rejects } = load(columns, [{ id: "a", kind: "A1", published: "not a date" }]);
    expect(rejects).toEqual([]);
    expect(rows[0]?.["grant_date"]).toBeNull();
  });

  it("is refused in the file when the pattern is no regular expression", () => {
    const r = recordsSchema.safeParse({
      path: "items",
      table: "t",
      key: ["id"],
      columns: { id: "text", x: { from: "y", when: { member: "kind", matches: "([" } } },
    });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(/must be a regular expression/);
  });
});
