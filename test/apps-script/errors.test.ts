import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { APPS_SCRIPT_DIR } from "./harness/project.js";
import { useAddon } from "./setup.js";

const addon = useAddon();
const TABLE = "marketplace_search_results";

describe("errors the user reads", () => {
  it("shows the server's refusals as readable messages", async () => {
    const { project } = await addon.start();
    const bad = project.rpc("startRun", {
      pipeline: "marketplace-search",
      params: { keyword: ["usb hub"], pages: "lots" },
      maxCredits: 5,
    });
    expect(bad).toMatchObject({ ok: false });
    expect(bad.ok || bad.message).toMatch(
      /^The Skillsync server refused POST \/runs: .*pages.*"lots" is not a whole number/s,
    );
    const tooMuch = project.rpc("startRun", {
      pipeline: "marketplace-search",
      params: { keyword: "x" },
      maxCredits: 60,
    });
    expect(tooMuch.ok || tooMuch.message).toMatch(/60 is above the server's ceiling of 50 credits/);
    const noCap = project.rpc("startRun", {
      pipeline: "marketplace-search",
      params: { keyword: "x" },
      maxCredits: "",
    });
    expect(noCap.ok || noCap.message).toBe(
      "Set a credit cap: the most credits this run may spend (a number above 0).",
    );

    const missing = project.rpc("loadTable", { table: "no_such_table" });
    expect(missing.ok || missing.message).toBe(
      'The Skillsync server refused GET /tables/no_such_table: no table "no_such_table" (see GET /tables)',
    );
    // The failed load left no empty tab behind.
    expect(project.spreadsheet.getSheetByName("no_such_table")).toBeNull();
    expect(project.rpc("writeRunTable", "q20990101000000-00000000", "x")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/refused GET \/runs\/q20990101000000-00000000: no run/),
    });
  });

  it("says the server failed (503: its warehouse is closed), and a Refresh that fails keeps the tab's rows and notes why", async () => {
    const env = await addon.start();
    const { project } = env;
    await env.runPipeline("marketplace-search", { keyword: ["usb hub"] });
    const loaded = project.call("loadTable", { table: TABLE, columns: ["asin"], tab: "Results" });
    const before = project.spreadsheet.getSheetByName("Results")!.dump();
    await env.backend.command({ type: "break" });

    project.spreadsheet.setActiveSheet(project.spreadsheet.getSheetByName("Results")!);
    expect(project.menu("Refresh this tab").error).toBeUndefined();
    expect(project.ui.alerts.at(-1)).toEqual({
      title: "Skillsync",
      message: `The Skillsync server failed (503 on GET /tables/${TABLE}): nothing was done: the server could not record the request's signature in its warehouse (is the database up?); try again shortly`,
    });
    const tab = project.spreadsheet.getSheetByName("Results")!;
    expect(tab.dump()).toEqual(before);
    expect(before).toHaveLength(1 + loaded.written);
    expect(tab.notes.get("1,1")).toMatch(
      /\nfailed [\d: -]+, nothing written: The Skillsync server failed \(503.*\nthe tab keeps its previous \d+ rows, loaded /,
    );
  });

  it("says when the URL is not a Skillsync server or not in the manifest's whitelist", async () => {
    const { project, htmlUrl, url } = await addon.start();
    const proxy = project.call("testConnection", { serverUrl: htmlUrl });
    expect(proxy.message).toBe(
      `The server at ${htmlUrl} answered 502 to GET /budget with something that is not Skillsync's JSON. Is the URL in Skillsync › Settings… the address of skillsync serve?`,
    );
    const manifest = JSON.parse(readFileSync(`${APPS_SCRIPT_DIR}appsscript.json`, "utf8")) as {
      urlFetchWhitelist: string[];
    };
    project.fetch.whitelist = manifest.urlFetchWhitelist;
    const blocked = project.call("testConnection");
    expect(blocked).toEqual({
      ok: false,
      message: `${url}/ is not in the urlFetchWhitelist of the script's appsscript.json: add it there and push the script again (see the README).`,
    });
    project.fetch.whitelist = [`${url}/`];
    expect(project.call("testConnection").ok).toBe(true);
  });

  it("never writes over a tab of the user's own, nor past the spreadsheet's cell limit", async () => {
    const env = await addon.start();
    const { project } = env;
    await env.runPipeline("marketplace-search", { keyword: ["usb hub"] });
    const mine = project.spreadsheet.getSheets()[0]!;
    mine.type(1, 1, [["my notes"], ["keep me"]]);
    const refused = project.rpc("loadTable", { table: TABLE, tab: "Sheet1" });
    expect(refused.ok || refused.message).toBe(
      'Tab "Sheet1" holds data that Skillsync did not write. Pick another tab name (or clear that tab first) so none of your own cells are overwritten.',
    );
    expect(mine.dump()).toEqual([["my notes"], ["keep me"]]);

    expect(project.call("loadTable", { table: TABLE, tab: "Results" }).complete).toBe(true);
    // The tab was shrunk meanwhile and another tab takes nearly all of the 10,000,000 cells.
    const results = project.spreadsheet.getSheetByName("Results")!;
    results.maxRows = results.getLastRow();
    project.spreadsheet.addSheet("Big").maxRows = Math.floor(
      (10_000_000 - 26_000 - results.maxRows * results.maxCols) / 26,
    );
    project.spreadsheet.setActiveSheet(results);
    project.fetch.fetchMs = 0;
    // A second page of rows arrives, so the refresh needs more rows than the tab has.
    await env.runPipeline("marketplace-search", { keyword: ["usb hub"], pages: 2 });
    expect(project.menu("Refresh this tab").error).toBeUndefined();
    expect(project.ui.alerts.at(-1)?.message).toMatch(
      /^Tab "Results" would need [\d,]+ more cells, which takes the spreadsheet over Google Sheets' limit of 10,000,000 cells \(it has [\d,]+\)\. Load fewer columns/,
    );
  });
});
