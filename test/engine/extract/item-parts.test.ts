import { describe, expect, it } from "vitest";
import { listBuiltinPipelines, loadPipeline } from "../../../engine/define/pipeline-file.js";
import { itemSplitOf, joinParts, partsToStore, splitAnswer } from "../../../engine/extract/item-parts.js";

const split = { member: "patentNumber", recordsPath: "data" };

describe("item parts", () => {
  it("splits an answer per asked identifier, spelling aside; unknown ones get no records", () => {
    const data = {
      total: 3,
      allRecordsCount: 2,
      data: [
        { pn: "US1000001B2", title: "a" },
        { patentId: "patent/US1000003B2/en" },
        { pn: "US1000001B2", n: 2 },
      ],
    };
    const parts = splitAnswer(split, data, ["us 1000001 b2", "XX9", "US1000003B2"]);
    expect(parts).toEqual([
      {
        total: 2,
        allRecordsCount: 2,
        data: [
          { pn: "US1000001B2", title: "a" },
          { pn: "US1000001B2", n: 2 },
        ],
      },
      { total: 0, allRecordsCount: 2, data: [] },
      { total: 1, allRecordsCount: 2, data: [{ patentId: "patent/US1000003B2/en" }] },
    ]);
    expect(joinParts(split, parts!)).toMatchObject({ total: 3, data: expect.any(Array) });
    expect(joinParts(split, parts!).data).toHaveLength(3);
  });

  it("does not split an answer with a record naming no asked identifier, or no record list", () => {
    expect(splitAnswer(split, { data: [{ pn: "US9" }] }, ["US1"])).toBeUndefined();
    expect(splitAnswer(split, { data: [{ title: "no identifier" }] }, ["US1"])).toBeUndefined();
    expect(splitAnswer(split, { total: 0 }, ["US1"])).toBeUndefined();
    expect(splitAnswer(split, [], ["US1"])).toBeUndefined();
  });

  it("stores each part under the request asking for that identifier alone", () => {
    const p = loadPipeline("patent-claims");
    const body = { patentNumber: "US1A,US2B", replaceByRelated: "0" };
    const parts = partsToStore(
      p,
      { hash: "batch", body, parts: { items: ["US1A", "US2B"], hashes: ["h1", "h2"] } },
      { total: 1, data: [{ pn: "US2B" }] },
    );
    expect(parts).toEqual([
      { hash: "h1", request: { patentNumber: "US1A", replaceByRelated: "0" }, data: { total: 0, data: [] } },
      {
        hash: "h2",
        request: { patentNumber: "US2B", replaceByRelated: "0" },
        data: { total: 1, data: [{ pn: "US2B" }] },
      },
    ]);
  });

  it("applies to the batched patent pipelines, not to paged or unbatched ones", () => {
    const split = Object.fromEntries(
      listBuiltinPipelines().map((f) => {
        const p = loadPipeline(f);
        return [p.name, itemSplitOf(p) !== undefined];
      }),
    );
    const batched = Object.entries(split)
      .filter(([, yes]) => yes)
      .map(([name]) => name);
    // Written out, not derived: a rule close to the implementation's could not fail with it.
    expect(batched.sort()).toEqual([
      "patent-abstract-image",
      "patent-bibliography",
      "patent-cited-by",
      "patent-claims",
      "patent-claims-translation",
      "patent-description",
      "patent-description-translation",
      "patent-detailed-bibliography",
      "patent-family",
      "patent-legal-status",
      "patent-references",
      "patent-title-abstract-translation",
    ]);
    // Paged (search, full-text images) or unbatched (marketplace, IP checks, reports): not split.
    for (const name of ["patent-search", "patent-fulltext-images", "marketplace-search", "ip-tro-check"])
      expect(split[name]).toBe(false);
  });
});
