import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { runPipelines } from "../../engine/run/runner.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { type AddonEnv, pause, useAddon } from "./setup.js";

const addon = useAddon();

/** What the sidebar does after Run: polls until the run has finished (as its setTimeout loop does). */
// biome-ignore lint/suspicious/noExplicitAny: JSON from the script, asserted by tests
async function pollUntilFinished(env: AddonEnv, runId: string): Promise<any[]> {
  const seen = [];
  for (let i = 0; i < 400; i++) {
    const v = env.project.call("pollRun", runId);
    seen.push(v);
    if (v.finished) return seen;
    await pause(25);
  }
  throw new Error(`run ${runId} did not finish`);
}

describe("Run a pipeline", () => {
  it("runs with a selected column of keywords and writes the run's rows into a tab", async () => {
    const env = await addon.start();
    const { project } = env;
    // An earlier run left other rows in the same table: the tab must get only this run's.
    expect((await env.runPipeline("marketplace-search", { keyword: ["garden hose"] })).status).toBe(
      "succeeded",
    );
    const keywords = project.spreadsheet.getSheets()[0]!;
    keywords.setName("Keywords");
    keywords.type(1, 1, [["keyword"], ["usb hub"], ["desk lamp"], [""], [" Küche "], ["usb hub"]]);
    keywords.frozenRows = 1;
    // The user selects the whole column A, header included.
    project.spreadsheet.select(keywords, "A1:A1000");

    expect(project.menu("Run a pipeline…").error).toBeUndefined();
    const sidebar = project.ui.sidebars.at(-1)!;
    expect(sidebar.getTitle()).toBe("Skillsync: run a pipeline");
    expect(sidebar.getContent()).toContain("add-ons1.css"); // the template included Styles
    expect(sidebar.getContent()).not.toContain("<?");

    const data = project.call("getRunSidebarData");
    const search = data.pipelines.find((p: { name: string }) => p.name === "marketplace-search");
    expect(search.table).toBe("marketplace_search_results");
    expect(search.params).toContainEqual(
      expect.objectContaining({ name: "keyword", required: true, repeatable: true }),
    );
    expect(data.maxCreditsPerRun).toBe(50);
    expect(data.tabs).toEqual(["Keywords"]);

    const selection = project.call("selectionValues");
    // Frozen header skipped, blanks and duplicates dropped, trimmed, in sheet order.
    expect(selection.values).toEqual(["usb hub", "desk lamp", "Küche"]);

    const started = project.call("startRun", {
      pipeline: "marketplace-search",
      params: { keyword: selection.values, pages: "1" },
      maxCredits: 10,
    });
    expect(started.runId).toMatch(/^q\d{14}-[0-9a-f]{8}$/);
    const polls = await pollUntilFinished(env, started.runId);
    const last = polls.at(-1);
    expect(last).toMatchObject({ status: "succeeded", finished: true, calls: { done: 3, planned: 3 } });
    expect(last.rows.written).toBeGreaterThan(20);
    expect(last.line).toMatch(/^succeeded · 3 of 3 calls · ≈\d+ of 10 credits · \d+ rows$/);

    const written = project.call("writeRunTable", started.runId, "");
    expect(written).toMatchObject({ tab: "marketplace-search", complete: true, written: last.rows.written });
    expect(written.message).toMatch(
      /^Loaded \d+ rows of table "marketplace_search_results" where run_id = r\d+/,
    );

    // The tab's cells: exactly the rows this run loaded, as the server serves them.
    const tab = project.spreadsheet.getSheetByName("marketplace-search")!;
    const cells = tab.dump();
    const header = cells[0] as string[];
    expect(header.slice(0, 4)).toEqual(["keyword", "page", "item_index", "observed_at"]);
    expect(header).toEqual(expect.arrayContaining(["asin", "price_text", "price", "sponsored", "run_id"]));
    expect(tab.getFrozenRows()).toBe(1);
    expect(tab.bold.get("1,1")).toBe(true);
    expect(cells).toHaveLength(1 + last.rows.written);
    const col = (name: string) => cells.slice(1).map((r) => r[header.indexOf(name)]);
    expect(new Set(col("keyword"))).toEqual(new Set(["usb hub", "desk lamp", "Küche"]));

    const server = await env.api("GET", "/tables/marketplace_search_results?limit=5000");
    const mine = server.json.rows.filter((r: { run_id: string }) => r.run_id === last.warehouseRunId);
    expect(mine.length).toBeLessThan(server.json.rows.length);
    const asCell = (v: unknown) => (v === null ? "" : typeof v === "object" ? JSON.stringify(v) : v);
    const expected = mine.map((r: Record<string, unknown>) => header.map((h) => asCell(r[h])));
    const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(sorted(cells.slice(1))).toEqual(sorted(expected));
    // Text stays text: prices like "$12.99" and ISO timestamps are not parsed by Sheets; numbers stay numbers.
    const priceText = col("price_text").filter((v) => v !== "");
    expect(priceText.length).toBeGreaterThan(0);
    for (const v of priceText) expect(v).toMatch(/^\$\d+\.\d\d$/);
    for (const v of col("observed_at")) expect(v).toMatch(/^\d{4}-\d\d-\d\dT/);
    for (const v of col("page")) expect(v).toBe(1);
    for (const v of col("sponsored")) expect(typeof v).toBe("boolean");
    expect(tab.notes.get("1,1")).toMatch(
      /^Skillsync: table marketplace_search_results where run_id = r\d{14}-[0-9a-f]{8}\n\d+ rows, loaded \d{4}-\d\d-\d\d \d\d:\d\d\nrun q\d{14}-[0-9a-f]{8} of marketplace-search: succeeded, ≈\d+ credits spent$/,
    );

    // The keywords the run started from were not touched.
    expect(keywords.dump().map((r) => r[0])).toEqual([
      "keyword",
      "usb hub",
      "desk lamp",
      "",
      " Küche ",
      "usb hub",
    ]);
  });

  it("Runs and credits lists recent runs with their outcome and credits, and the budget", async () => {
    const env = await addon.start();
    const { project } = env;
    const started = project.call("startRun", {
      pipeline: "marketplace-search",
      params: { keyword: ["usb hub", "desk lamp", "garden hose"] },
      maxCredits: 1,
    });
    const last = (await pollUntilFinished(env, started.runId)).at(-1);
    expect(last).toMatchObject({ status: "ceiling", finished: true, credits: { spent: 1, max: 1 } });
    expect(last.line).toMatch(/^ceiling · 1 of 3 calls · ≈1 of 1 credits · \d+ rows · .*credit/);

    expect(project.menu("Runs and credits").error).toBeUndefined();
    expect(project.ui.dialogs.at(-1)?.title).toBe("Skillsync: runs and credits");
    const view = project.call("getRunsAndCredits");
    // The queue job and its warehouse run are one run, listed once.
    expect(view.runs).toHaveLength(1);
    expect(view.runs[0]).toMatchObject({
      runId: started.runId,
      pipeline: "marketplace-search",
      status: "ceiling",
      credits: { spent: 1, max: 1 },
      line: last.line,
    });
    expect(view.budget).toEqual({
      daily: "Today: ≈1 credit spent, no limit",
      monthly: "This month: ≈1 credit spent, no limit",
      perRun: "At most 50 credits per run. ≈: estimated, at the built-in prices, not your account's.",
    });
    expect(view.queue).toEqual({ queued: 0, running: 0 });

    // The rows the run loaded before it stopped can still be written (the dialog's "Write to tab").
    const written = project.call("writeRunTable", started.runId, "Partial");
    expect(written).toMatchObject({ tab: "Partial", complete: true, written: last.rows.written });
    expect(project.spreadsheet.getSheetByName("Partial")!.dump()).toHaveLength(1 + last.rows.written);
  });

  it("Runs and credits also lists the warehouse's runs made beside the server (CLI, scheduler), each once", async () => {
    const env = await addon.start();
    const { project } = env;
    const started = project.call("startRun", {
      pipeline: "marketplace-search",
      params: { keyword: ["usb hub"] },
      maxCredits: 5,
    });
    await pollUntilFinished(env, started.runId);
    // Runs the server never queued: as `skillsync run` and `skillsync schedule` make them, on the
    // same warehouse file.
    const { client } = await emulatorWithClient();
    const w = await openWarehouse(env.warehouseUrl);
    try {
      for (const [keyword, trigger] of [
        ["desk lamp", "manual"],
        ["garden hose", "schedule"],
      ] as const) {
        const s = await runPipelines({
          warehouse: w,
          client,
          pipelines: [loadPipeline("marketplace-search")],
          params: { keyword: [keyword] },
          trigger,
        });
        expect(s.status).toBe("succeeded");
      }
    } finally {
      await w.close();
    }
    const view = project.call("getRunsAndCredits");
    // The server's queue first; then the others, newest first. The server's own run is not listed twice.
    expect(view.runs.map((r: { runId: string }) => r.runId)).toHaveLength(3);
    expect(view.runs[0]).toMatchObject({ runId: started.runId, status: "succeeded" });
    expect(view.runs.slice(1)).toEqual([
      expect.objectContaining({ pipeline: "marketplace-search", status: "succeeded", finished: true }),
      expect.objectContaining({ pipeline: "marketplace-search", status: "succeeded", finished: true }),
    ]);
    expect(view.runs[1].startedAt >= view.runs[2].startedAt).toBe(true);
    expect(view.runs[1].line).toMatch(/^succeeded · 1 of 1 call · ≈1 credit/);
  });
});
