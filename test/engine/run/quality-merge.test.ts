import { describe, expect, it } from "vitest";
import { mergeSeen, type QualitySeen } from "../../../engine/run/quality.js";

const seen = (o: Partial<QualitySeen>): QualitySeen => ({
  emptyColumns: [],
  unmappedMembers: [],
  records: 1,
  rejected: 0,
  firstReject: undefined,
  ...o,
});

describe("what the workers' shares of a pipeline showed, added up", () => {
  it("a column is empty only when every share that saw records found it empty; members unmapped in any share count once", () => {
    const merged = mergeSeen([
      seen({ emptyColumns: ["price (from price)", "rating (from rating)"], unmappedMembers: ["badge"] }),
      seen({
        emptyColumns: ["rating (from rating)"],
        unmappedMembers: ["badge", "coupon"],
        rejected: 2,
        firstReject: "asin: missing",
      }),
      // A share with no records says nothing about columns.
      seen({ records: 0, emptyColumns: [] }),
    ]);
    expect(merged.emptyColumns).toEqual(["rating (from rating)"]);
    expect(merged.unmappedMembers.sort()).toEqual(["badge", "coupon"]);
    expect(merged.records).toBe(2);
    expect(merged.rejected).toBe(2);
    expect(merged.firstReject).toBe("asin: missing");
  });

  it("no share with records: no empty column", () => {
    expect(mergeSeen([seen({ records: 0 })]).emptyColumns).toEqual([]);
    expect(mergeSeen([]).emptyColumns).toEqual([]);
  });
});
