import { describe, expect, it } from "vitest";
import { RowCap } from "../../../connectors/warehouse/read-cap.js";

const MARK = /…\[cut: first (\d+) of (\d+) bytes(, base64)?\]$/;

function capped(rows: Record<string, unknown>[], o: Partial<ConstructorParameters<typeof RowCap>[0]>) {
  const cap = new RowCap({ maxBytes: undefined, maxCellBytes: undefined, cutAt: undefined, ...o });
  for (const row of rows) if (!cap.add(row)) break;
  return { rows: cap.rows, ...cap.measure() };
}

describe("RowCap: the cells and bytes of a bounded read", () => {
  it("cuts a long text on a character boundary and marks it, within the cell's bound", () => {
    const text = "é".repeat(5000); // 10,000 bytes
    const { rows, cellsCut } = capped([{ t: text, short: "ok", n: 7, b: null }], { maxCellBytes: 1000 });
    const cut = rows[0]!["t"] as string;
    const [, kept, whole] = MARK.exec(cut)!;
    expect(Number(whole)).toBe(10_000);
    expect(Number(kept)).toBeLessThanOrEqual(1000);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(1000);
    expect(cut.startsWith("é".repeat(Number(kept) / 2))).toBe(true);
    expect(cut).not.toContain("\ufffd");
    expect(rows[0]).toMatchObject({ short: "ok", n: 7, b: null });
    expect(cellsCut).toBe(1);
  });

  it("turns a long blob into the base64 of its head, marked; a short one stays bytes", () => {
    const blob = Buffer.alloc(10_000, 0xab);
    const { rows } = capped([{ big: blob, small: Buffer.from([1, 2, 3]) }], { maxCellBytes: 1000 });
    const cut = rows[0]!["big"] as string;
    const [, kept, whole, base64] = MARK.exec(cut)!;
    expect([whole, base64]).toEqual(["10000", ", base64"]);
    expect(Buffer.from(cut.slice(0, cut.indexOf("…")), "base64")).toEqual(blob.subarray(0, Number(kept)));
    expect(cut.length).toBeLessThanOrEqual(1000);
    expect(rows[0]!["small"]).toEqual(Buffer.from([1, 2, 3]));
  });

  it("cuts a JSON value (Postgres json, arrays) as its text", () => {
    const { rows } = capped([{ j: { list: Array.from({ length: 500 }, (_, i) => `item ${i}`) } }], {
      maxCellBytes: 200,
    });
    expect(rows[0]!["j"]).toMatch(/^\{"list":\["item 0","item 1",.*…\[cut: first \d+ of \d+ bytes\]$/);
  });

  it("stops before the row that would pass maxBytes, and says so", () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ i, t: "x".repeat(100) }));
    const r = capped(rows, { maxBytes: 1000 });
    expect(r.stoppedBy).toBe("bytes");
    expect(r.rows.length).toBeGreaterThan(5);
    expect(r.rows.length).toBeLessThan(10);
    expect(r.bytes).toBeLessThanOrEqual(1000);
    // The measure is never below the rows' JSON (the array's brackets and commas aside).
    expect(Buffer.byteLength(JSON.stringify(r.rows))).toBeLessThanOrEqual(r.bytes + r.rows.length + 1);
    expect(r.rows.map((x) => x.i)).toEqual([...r.rows.keys()]);
  });

  it("lets a first row wider than the answer through, its cells cut to a share of it", () => {
    const row = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`c${i}`, "y".repeat(5000)]));
    const r = capped([row, row], { maxBytes: 4000, maxCellBytes: 3000 });
    expect(r.rows).toHaveLength(1);
    expect(r.stoppedBy).toBe("bytes");
    expect(r.cellsCut).toBe(10);
    expect(Buffer.byteLength(JSON.stringify(r.rows[0]))).toBeLessThanOrEqual(4000);
  });

  it("at cutAt keeps one more row, not counted, to show there was more", () => {
    const r = capped(
      Array.from({ length: 5 }, (_, i) => ({ i, t: "z".repeat(300) })),
      { cutAt: 2, maxCellBytes: 100, maxBytes: 10_000 },
    );
    expect(r.rows.map((x) => x.i)).toEqual([0, 1, 2]);
    expect(r).toMatchObject({ stoppedBy: "rows", cellsCut: 2 });
  });

  it("leaves rows alone when nothing is bounded, and keeps a column named __proto__", () => {
    const row = { a: "x".repeat(100_000), n: 10n };
    expect(capped([row], {}).rows[0]).toBe(row);
    const odd = JSON.parse('{"__proto__": "value", "b": 1}') as Record<string, unknown>;
    const kept = capped([odd], { maxCellBytes: 100 }).rows[0]!;
    expect(Object.keys(kept)).toEqual(["__proto__", "b"]);
    expect(JSON.stringify(kept)).toBe('{"__proto__":"value","b":1}');
  });
});
