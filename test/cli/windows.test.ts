import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { writePipelineFile } from "../helpers/pipeline-files.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

const params = (...kv: string[]) => kv.flatMap((p) => ["--param", p]);

describe("date windows from the command line", () => {
  it("plan lists and prices every window of patent-search-by-date, and marks the done ones after a run", async () => {
    const { emulator } = await emulatorWithClient();
    const db = freshWarehouseUrl("sqlite");
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const args = params("q=solid state battery", "start=2025-01-15", "end=2025-04-10");
    const plan = await cli(["plan", "patent-search-by-date", ...args, "--db", db], env);
    expect(plan.err).toBe("");
    expect(plan.code).toBe(0);
    expect(plan.out).toContain("patent-search-by-date: 4 window(s), 4 to ask, 0 done");
    for (const w of [
      "2025-01-15..2025-01-31",
      "2025-02-01..2025-02-28",
      "2025-03-01..2025-03-31",
      "2025-04-01..2025-04-10",
    ])
      expect(plan.out).toMatch(new RegExp(`${w.replaceAll(".", "\\.")}\\s+ask\\s+1\\s+0\\s+1`));
    expect(plan.out).toContain("credits: 4 for the first pages");
    expect(emulator.ledger().totalCalls).toBe(0);

    const run = await cli(["run", "patent-search-by-date", ...args, "--db", db, "--json"], env);
    expect(run.code).toBe(0);
    expect(emulator.ledger().chargedCalls).toBe(4);
    const json = await cli(["plan", "patent-search-by-date", ...args, "--db", db, "--json"], env);
    const windows = JSON.parse(json.out).pipelines[0].windows as { ask: string; calls: number }[];
    expect(windows.map((w) => w.ask)).toEqual(["done", "done", "done", "done"]);
    const text = await cli(["plan", "patent-search-by-date", ...args, "--db", db], env);
    expect(text.out).toContain("4 window(s), 0 to ask, 4 done");
    expect(text.out).toMatch(/2025-01-15\.\.2025-01-31\s+done: skipped\s+0\s+0\s+0/);
  });

  it("a wrong window exits 2 and sends nothing: start after end, a step that is none, a window template without a block", async () => {
    const { emulator } = await emulatorWithClient();
    const db = freshWarehouseUrl("sqlite");
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const reversed = await cli(
      ["run", "patent-search-by-date", ...params("q=x", "start=2025-03-10", "end=2025-03-01"), "--db", db],
      env,
    );
    expect(reversed.code).toBe(2);
    expect(reversed.err).toContain("window.start: the range starts 2025-03-10, after its end 2025-03-01");
    expect(reversed.err).toContain("patent-search-by-date.yaml");

    const step = await cli(
      ["run", "patent-search-by-date", ...params("q=x", "start=2025-03-01", "step=2x"), "--db", db],
      env,
    );
    expect(step.code).toBe(2);
    expect(step.err).toContain('"2x" is not one of 1d, 7d, 1mo, range');

    const badStep = writePipelineFile(`name: weekly
skill: websearch-patent-search
params: { q: {} }
window: { start: 2025-01-01, end: 2025-01-31, step: 2x }
request: { q: "{{q}}", after: "publication:{{window.start:yyyymmdd}}" }
records: { path: results, table: weekly, mode: append, columns: { title: text } }
`);
    const file = await cli(["run", badStep, ...params("q=x"), "--db", db], env);
    expect(file.code).toBe(2);
    expect(file.err).toContain("window.step: must be a window length");
    expect(file.err).toContain("(line 4)");

    const noBlock = writePipelineFile(`name: unwindowed
skill: websearch-patent-search
params: { q: {} }
request: { q: "{{q}}", after: "publication:{{window.start:yyyymmdd}}" }
records: { path: results, table: unwindowed, mode: append, columns: { title: text } }
`);
    const missing = await cli(["plan", noBlock, ...params("q=x"), "--db", db], env);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(
      "request.after: {{window.start:yyyymmdd}} reads a date window, but this pipeline has no window: block",
    );
    expect(missing.err).toContain("(line 4)");
    expect(emulator.ledger().totalCalls).toBe(0);
  });
});
