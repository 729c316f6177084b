import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../core/errors.js";
import { parseParamFlags, resolveDate, resolveParams, typedInput } from "../../../engine/define/params.js";
import { renderRequest } from "../../../engine/define/template.js";
import { packBatches } from "../../../engine/extract/planned-calls.js";
import { paramDefSchema } from "../../../schema/pipeline.js";

const def = (d: Record<string, unknown>) => paramDefSchema.parse(d);

describe("params", () => {
  it("collects repeated flags", () => {
    expect(parseParamFlags(["k=a", "k=b=c", "n=2"])).toEqual({ k: ["a", "b=c"], n: ["2"] });
    expect(() => parseParamFlags(["novalue"])).toThrow(ValidationError);
  });

  it("types, bounds, enums, defaults and required params, all problems at once", () => {
    const defs = {
      pages: def({ type: "integer", min: 1, max: 5, default: 1 }),
      sort: def({ enum: ["new", "old"] }),
      keyword: def({ repeatable: true, required: true }),
      when: def({ type: "date" }),
    };
    expect(resolveParams(defs, { keyword: ["a", "b"], when: ["2024-02-29"] })).toEqual({
      pages: 1,
      keyword: ["a", "b"],
      when: "2024-02-29",
    });
    try {
      resolveParams(defs, { pages: ["9"], sort: ["sideways"], when: ["2023-02-29"], extra: ["1"] });
      expect.unreachable();
    } catch (err) {
      const e = err as ValidationError;
      const byPath = Object.fromEntries(e.issues.map((i) => [String(i.path[0]), i.message]));
      expect(byPath["pages"]).toMatch(/above the maximum 5/);
      expect(byPath["sort"]).toMatch(/not one of new, old/);
      expect(byPath["when"]).toMatch(/not a date/);
      expect(byPath["extra"]).toMatch(/unknown param/);
      expect(byPath["keyword"]).toMatch(/required/);
    }
  });

  it("refuses several values for a single-value param", () => {
    expect(() => resolveParams({ q: def({}) }, { q: ["a", "b"] })).toThrow(/takes one value/);
  });

  it("resolves relative dates", () => {
    const now = new Date("2026-03-01T10:00:00Z");
    expect(resolveDate("yesterday", now)).toBe("2026-02-28");
    expect(resolveDate("today-7", now)).toBe("2026-02-22");
    expect(resolveDate("2026-02-30", now)).toBeUndefined();
  });
});

describe("input values", () => {
  it("are typed as the param of the same name is declared, else kept as text", () => {
    expect(typedInput("5", def({ type: "integer", min: 1 }))).toBe(5);
    expect(typedInput("2.5", def({ type: "number" }))).toBe(2.5);
    expect(typedInput("yes", def({ type: "boolean" }))).toBe(true);
    expect(typedInput("007", def({}))).toBe("007");
    expect(typedInput("007", undefined)).toBe("007");
    expect(() => typedInput("0", def({ type: "integer", min: 1 }))).toThrow(/0 is below the minimum 1/);
    expect(() => typedInput("five", def({ type: "integer" }))).toThrow(/"five" is not a whole number/);
  });
});

describe("request templates", () => {
  it("keeps types, leaves out unset members, interpolates text", () => {
    expect(
      renderRequest(
        { q: "{{q}}", num: "{{num}}", country: "{{country}}", label: "k={{q}}", fixed: 3 },
        { q: "lidar", num: 20 },
      ),
    ).toEqual({
      q: "lidar",
      num: 20,
      label: "k=lidar",
      fixed: 3,
    });
  });
});

describe("identifier batching", () => {
  it("packs at most `size` values within `maxChars`", () => {
    const ids = Array.from({ length: 250 }, (_, i) => `US${1000000 + i}B2`);
    expect(packBatches(ids, 100, 60000).map((b) => b.length)).toEqual([100, 100, 50]);
    const long = Array.from({ length: 10 }, (_, i) => `${"X".repeat(20)}${i}`);
    const packed = packBatches(long, 100, 50);
    expect(packed.every((b) => b.join(",").length <= 50)).toBe(true);
    expect(packed.flat()).toEqual(long);
  });
});
