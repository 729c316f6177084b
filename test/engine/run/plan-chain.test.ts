import { describe, expect, it } from "vitest";
import { parsePipeline } from "../../../engine/define/pipeline-file.js";
import { loadPrices } from "../../../engine/define/prices.js";
import { chainBound, upstreamOf } from "../../../engine/run/plan-chain.js";

const search = parsePipeline(
  `name: finder
skill: marketplace-search
request: { keyword: lamp }
records: { path: products, table: found, mode: append, columns: { asin: text } }
`,
  "/x/finder.yaml",
);
const details = parsePipeline(
  `name: details
skill: patent-core-bibliography
input: { name: id, from: { sql: "select asin from found" } }
batch: { member: patentNumber, size: 4 }
records: { path: data, table: details, mode: append, columns: { pn: text } }
`,
  "/x/details.yaml",
);

describe("bounds of chained pipelines", () => {
  it("finds the earlier pipelines whose table an input query reads", () => {
    expect(upstreamOf(details, [search]).map((p) => p.name)).toEqual(["finder"]);
    expect(upstreamOf(search, [details])).toEqual([]);
  });

  it("bounds batches by the rows the earlier ones can bring, or says it is unknown", () => {
    const prices = loadPrices();
    const known = chainBound(details, [{ pipeline: "finder", rowsAtMost: 10 }], 2, 1, prices);
    expect(known).toMatchObject({ dependsOn: ["finder"], inputsAtMost: 12, callsAtMost: 3 });
    expect(known.creditsAtMost).toBeGreaterThan(0);
    const unknown = chainBound(details, [{ pipeline: "finder", rowsAtMost: null }], 2, 1, prices);
    expect(unknown).toEqual({
      dependsOn: ["finder"],
      inputsAtMost: null,
      callsAtMost: null,
      creditsAtMost: null,
    });
  });
});
