import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { listBuiltinPipelines } from "../../engine/define/pipeline-file.js";
import { CATALOG_SIZE } from "../../schema/catalog.js";
import { cli } from "../helpers/cli.js";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** Every number README puts before `pattern` (a count it claims). */
function counts(pattern: RegExp): number[] {
  return [...README.matchAll(pattern)].map((m) => Number(m[1]));
}

describe("README's counts", () => {
  it("names as many built-in pipelines as pipelines/ holds", () => {
    const claimed = [...counts(/(\d+) are \[built in\]/g), ...counts(/the (\d+) files in `pipelines\/`/g)];
    expect(claimed.length).toBeGreaterThanOrEqual(2);
    for (const n of claimed) expect(n).toBe(listBuiltinPipelines().length);
  });

  it("says `skillsync tools` lists what it lists, of the catalog's operations", async () => {
    const r = await cli(["tools", "--format", "tools"]);
    expect(r.code).toBe(0);
    const listed = (JSON.parse(r.out) as { tools: unknown[] }).tools.length;
    expect(README).toMatch(new RegExp(`Of its ${CATALOG_SIZE}, \`skillsync tools\` lists the\\s+${listed} `));
    expect(README).toContain(`the other ${CATALOG_SIZE - listed} are called`);
    // No sentence may say tools lists the whole catalog.
    expect(README).not.toMatch(/`skillsync tools` lists them/);
  });
});
