import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { objectKeysAt } from "../../schema/keys.js";
import { pipelineSchema } from "../../schema/pipeline.js";

const page = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../docs/${name}`, import.meta.url)), "utf8");

/** Blocks with a page of their own; every other member is in docs/pipeline-files.md. */
const ELSEWHERE: Record<string, string> = {
  report: "reports.md",
  schedule: "scheduling.md",
  sheet: "sheets.md",
};

describe("docs/pipeline-files.md", () => {
  const doc = page("pipeline-files.md");

  it("names every member of a pipeline file, records, pages, batches, windows and inputs", () => {
    const blocks: (string | number)[][] = [
      [],
      ["records"],
      ["records", "children", 0],
      ["paginate"],
      ["batch"],
      ["window"],
      ["input"],
    ];
    for (const path of blocks) {
      for (const member of objectKeysAt(pipelineSchema, path)) {
        const where = path.length === 0 ? ELSEWHERE[member] : undefined;
        const text = where ? page(where) : doc;
        expect(text, `${[...path, member].join(".")} in docs/${where ?? "pipeline-files.md"}`).toMatch(
          new RegExp(`\\b${member}:`),
        );
      }
    }
  });

  it("explains inferColumns and the operations reached by slug, and links to both", () => {
    expect(doc).toContain("## Columns from the data: `inferColumns`");
    expect(doc).toContain("## Operations beyond the documented 23");
    const pipelines = page("pipelines.md");
    expect(pipelines).toContain("(pipeline-files.md#columns-from-the-data-infercolumns)");
    expect(pipelines).toContain("(pipeline-files.md#operations-beyond-the-documented-23)");
  });
});
