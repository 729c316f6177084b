import { describe, expect, it } from "vitest";
import { type AddonEnv, pause, useAddon } from "./setup.js";

const addon = useAddon();
const TABLE = "marketplace_search_results";
const TIME = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d`;

/** Starts a run from the sidebar's functions and polls it until it has finished, as the sidebar does. */
// biome-ignore lint/suspicious/noExplicitAny: JSON from the script, asserted by tests
async function runToEnd(env: AddonEnv, keywords: string[], maxCredits: number): Promise<any> {
  const started = env.project.call("startRun", {
    pipeline: "marketplace-search",
    params: { keyword: keywords },
    maxCredits,
  });
  for (let i = 0; i < 400; i++) {
    const v = env.project.call("pollRun", started.runId);
    if (v.finished) return (await env.api("GET", `/runs/${started.runId}`)).json;
    await pause(25);
  }
  throw new Error(`run ${started.runId} did not finish`);
}

const note = (env: AddonEnv, tab: string) => env.project.spreadsheet.getSheetByName(tab)!.notes.get("1,1");

describe("the header cell's note", () => {
  it("of a run's tab: the refresh's time, outcome and rows, the run's outcome and credits; a failed refresh keeps the rows and says why", async () => {
    const env = await addon.start();
    const { project } = env;
    const run = await runToEnd(env, ["usb hub", "desk lamp"], 10);
    expect(run).toMatchObject({ status: "succeeded" });
    expect(run.credits.spent).toBeGreaterThan(0);
    const written = project.call("writeRunTable", run.runId, "Run tab");
    expect(written).toMatchObject({ complete: true, written: run.rows.written });
    const rowsNote = `${run.rows.written} rows, loaded ${TIME}`;
    // ≈: the built-in prices are estimates (docs/pricing.md).
    const runLine = `run ${run.runId} of marketplace-search: succeeded, ≈${run.credits.spent} credits spent`;
    const head = `Skillsync: table ${TABLE} where run_id = ${run.warehouseRunId}`;
    expect(note(env, "Run tab")).toMatch(new RegExp(`^${head}\\n${rowsNote}\\n${runLine}$`));

    // A run stopped at its cap: the note says so, with why and what it spent.
    const capped = await runToEnd(env, ["garden hose", "desk chair", "usb c cable"], 1);
    expect(capped).toMatchObject({ status: "ceiling", credits: { spent: 1 } });
    project.call("writeRunTable", capped.runId, "Capped");
    expect(note(env, "Capped")).toContain(
      `\nrun ${capped.runId} of marketplace-search: ceiling (${capped.stopReason}), ≈1 credit spent`,
    );

    // The server breaks; Refresh this tab fails, the tab keeps its rows, and the note says why.
    const tab = project.spreadsheet.getSheetByName("Run tab")!;
    const before = tab.dump();
    expect(before).toHaveLength(1 + run.rows.written);
    await env.backend.command({ type: "break" });
    project.spreadsheet.setActiveSheet(tab);
    expect(project.menu("Refresh this tab").error).toBeUndefined();
    const why = `The Skillsync server failed (503 on GET /tables/${TABLE}): nothing was done: the server could not record the request's signature in its warehouse (is the database up?); try again shortly`;
    expect(project.ui.alerts.at(-1)?.message).toBe(why);
    expect(tab.dump()).toEqual(before);
    const escaped = why.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    expect(note(env, "Run tab")).toMatch(
      new RegExp(
        `^${head}\\nfailed ${TIME}, nothing written: ${escaped}\\nthe tab keeps its previous ${run.rows.written} rows, loaded ${TIME}\\n${runLine}$`,
      ),
    );
  });

  it("of a load that fails part-way: when, after how many rows, and why", async () => {
    const env = await addon.start();
    const { project } = env;
    await env.runPipeline("marketplace-search", { keyword: ["usb hub"] });
    // From the third page on, UrlFetchApp refuses the server's address.
    let pages = 0;
    project.beforeFetch = () => {
      if (++pages === 2) project.fetch.whitelist = ["https://elsewhere.example/"];
    };
    const failed = project.rpc("loadTable", { table: TABLE, columns: ["asin"], tab: "Part", pageSize: 5 });
    expect(failed.ok).toBe(false);
    expect(project.spreadsheet.getSheetByName("Part")!.dump()).toHaveLength(1 + 10);
    expect(note(env, "Part")).toMatch(
      new RegExp(
        `^Skillsync: table ${TABLE}\\nfailed ${TIME} after 10 rows: .* is not in the urlFetchWhitelist`,
      ),
    );
  });
});
