import { describe, expect, it } from "vitest";
import { EXECUTION_LIMIT_MS } from "./harness/clock.js";
import { type AddonEnv, useAddon } from "./setup.js";

const addon = useAddon();
const TABLE = "marketplace_search_results";
const COLUMNS = ["keyword", "item_index", "asin", "price_text", "sponsored"];

/** The table as the server serves it, as cells (null → empty), sorted for comparison. */
async function serverCells(
  env: AddonEnv,
  columns = COLUMNS,
  keep: (r: Record<string, unknown>) => boolean = () => true,
) {
  const page = await env.api("GET", `/tables/${TABLE}?limit=5000`);
  return page.json.rows
    .filter(keep)
    .map((r: Record<string, unknown>) => JSON.stringify(columns.map((c) => r[c] ?? "")))
    .sort();
}

const tabCells = (env: AddonEnv, tab: string) =>
  env.project.spreadsheet
    .getSheetByName(tab)!
    .dump()
    .slice(1)
    .map((r) => JSON.stringify(r))
    .sort();

describe("Load a table", () => {
  it("pages a large table in chunks, continues in follow-up executions by trigger, and completes", async () => {
    const env = await addon.start();
    const { project } = env;
    const run = await env.runPipeline("marketplace-search", {
      keyword: ["usb hub", "desk lamp", "garden hose"],
    });
    expect(run.status).toBe("succeeded");
    const total = run.rows.written as number;
    expect(total).toBeGreaterThan(40);

    expect(project.menu("Load a table…").error).toBeUndefined();
    expect(project.ui.dialogs.at(-1)?.title).toBe("Skillsync: load a table");
    const data = project.call("getLoadDialogData");
    const info = data.tables.find((t: { name: string }) => t.name === TABLE);
    expect(info.columns).toEqual(expect.arrayContaining([...COLUMNS, "run_id"]));

    // Every request "takes" a minute: only a few pages fit in one 6-minute execution.
    project.fetch.fetchMs = 60_000;
    const first = project.call("loadTable", { table: TABLE, columns: COLUMNS, tab: "Results", pageSize: 5 });
    expect(first).toMatchObject({ tab: "Results", complete: false, continues: true, total });
    expect(first.written).toBeGreaterThanOrEqual(10);
    expect(first.written % 5).toBe(0);
    expect(first.message).toMatch(
      /so far\. Apps Script stops a script after 6 minutes, so the rest loads in a follow-up run/,
    );
    const tab = project.spreadsheet.getSheetByName("Results")!;
    expect(tab.dump()).toHaveLength(1 + first.written);
    expect(tab.dump()[0]).toEqual(COLUMNS);
    expect(tab.getFrozenRows()).toBe(1);
    expect(tab.notes.get("1,1")).toContain(
      `loading: ${first.written} of ${total} rows (continues automatically)`,
    );
    expect(project.pendingTriggers().map((t) => t.handler)).toEqual(["skillsyncContinueLoads"]);

    let followUps = 0;
    for (let outcome = project.fireNextTrigger(); outcome; outcome = project.fireNextTrigger()) {
      expect(outcome.error).toBeUndefined();
      expect(outcome.execution.kind).toBe("trigger");
      followUps++;
      expect(followUps).toBeLessThan(20);
    }
    expect(followUps).toBeGreaterThanOrEqual(2);
    const loads = project.executions.filter(
      (e) => e.entry === "loadTable" || e.entry === "skillsyncContinueLoads",
    );
    // Each execution used most of its time and none passed Apps Script's limit.
    for (const e of loads.slice(0, -1)) expect(e.duration()).toBeGreaterThan(4 * 60_000);
    for (const e of loads) expect(e.duration()).toBeLessThan(EXECUTION_LIMIT_MS);
    // The one-off triggers were deleted as they fired; none is left behind.
    expect(project.triggers.filter((t) => !t.deleted)).toEqual([]);

    expect(tabCells(env, "Results")).toEqual(await serverCells(env));
    expect(tab.dump()).toHaveLength(1 + total);
    expect(tab.notes.get("1,1")).toMatch(new RegExp(`^Skillsync: table ${TABLE}\\n${total} rows, loaded `));
    // Every page was asked for once, in order, each request signed and with its own nonce.
    const pages = project.sent.filter((r) => r.url.includes(`/tables/${TABLE}?`));
    expect(pages.map((r) => Number(new URL(r.url).searchParams.get("offset")))).toEqual(
      Array.from({ length: Math.ceil(total / 5) }, (_, i) => i * 5),
    );
    expect(new Set(pages.map((r) => new URL(r.url).searchParams.get("nonce"))).size).toBe(pages.length);
    expect(pages.every((r) => /^[0-9a-f]{64}$/.test(r.headers["X-Skillsync-Signature"] ?? ""))).toBe(true);
  });

  it("Refresh this tab repeats the tab's load: same table, columns and filter, new rows", async () => {
    const env = await addon.start();
    const { project } = env;
    await env.runPipeline("marketplace-search", { keyword: ["usb hub", "desk lamp"] });
    const filter = (r: Record<string, unknown>) => r["keyword"] === "usb hub";
    const loaded = project.call("loadTable", {
      table: TABLE,
      columns: ["asin", "item_index", "price_text"],
      filterColumn: "keyword",
      filterValues: "usb hub\n",
      tab: "USB",
    });
    expect(loaded).toMatchObject({ complete: true });
    expect(loaded.message).toMatch(
      /^Loaded \d+ rows of table "marketplace_search_results" where keyword = usb hub into tab "USB"\.$/,
    );
    const before = tabCells(env, "USB");
    expect(before).toEqual(await serverCells(env, ["asin", "item_index", "price_text"], filter));

    // A second page of results arrives on the server; the user refreshes the tab.
    await env.runPipeline("marketplace-search", { keyword: ["usb hub"], pages: 2 });
    const after = await serverCells(env, ["asin", "item_index", "price_text"], filter);
    expect(after.length).toBeGreaterThan(before.length);
    project.spreadsheet.setActiveSheet(project.spreadsheet.getSheetByName("USB")!);
    expect(project.menu("Refresh this tab").error).toBeUndefined();
    expect(project.spreadsheet.toasts.at(-1)?.message).toBe(
      `Loaded ${after.length} rows of table "${TABLE}" where keyword = usb hub into tab "USB".`,
    );
    expect(tabCells(env, "USB")).toEqual(after);
    expect(project.spreadsheet.getSheetByName("USB")!.dump()[0]).toEqual([
      "asin",
      "item_index",
      "price_text",
    ]);

    // A tab Skillsync did not fill has nothing to refresh.
    project.spreadsheet.setActiveSheet(project.spreadsheet.getSheetByName("Sheet1")!);
    expect(project.menu("Refresh this tab").error).toBeUndefined();
    expect(project.ui.alerts.at(-1)?.message).toMatch(
      /^Tab "Sheet1" was not filled by Skillsync, so there is nothing to refresh/,
    );
  });

  it("refuses an overlapping load of the same spreadsheet with a readable message", async () => {
    const env = await addon.start();
    const { project } = env;
    await env.runPipeline("marketplace-search", { keyword: ["usb hub"] });
    expect(project.call("loadTable", { table: TABLE, tab: "Results" }).complete).toBe(true);

    // While a second load is fetching its first page, the user clicks Refresh this tab on Results.
    let overlapping: ReturnType<typeof project.menu> | undefined;
    project.beforeFetch = () => {
      if (overlapping) return;
      project.spreadsheet.setActiveSheet(project.spreadsheet.getSheetByName("Results")!);
      overlapping = project.menu("Refresh this tab");
    };
    const second = project.call("loadTable", { table: TABLE, columns: ["asin"], tab: "Other" });
    project.beforeFetch = () => {};
    expect(second.complete).toBe(true);
    expect(overlapping?.error).toBeUndefined();
    expect(project.ui.alerts.at(-1)?.message).toMatch(
      /^Skillsync is already loading into this spreadsheet \(loading tab "Other", since \d{4}-\d\d-\d\d \d\d:\d\d\), so loading tab "Results" was not started: two loads at once would write the same tabs\. Try again when it has finished\.$/,
    );
    // The refused refresh sent nothing; once the load has finished, refreshing works.
    expect(project.sent.filter((r) => r.url.includes("/tables/")).length).toBe(2);
    project.spreadsheet.setActiveSheet(project.spreadsheet.getSheetByName("Results")!);
    expect(project.menu("Refresh this tab").error).toBeUndefined();
    expect(project.spreadsheet.toasts.at(-1)?.message).toMatch(/^Loaded \d+ rows of table/);
  });

  it("says how far it got when no follow-up can be scheduled, and Refresh this tab continues from there", async () => {
    const env = await addon.start();
    const { project } = env;
    const run = await env.runPipeline("marketplace-search", { keyword: ["usb hub", "desk lamp"] });
    project.triggerOptions.refuse = true;
    project.fetch.fetchMs = 60_000;
    const first = project.call("loadTable", { table: TABLE, columns: COLUMNS, tab: "Results", pageSize: 5 });
    expect(first).toMatchObject({ complete: false, continues: false });
    expect(first.message).toBe(
      `Loaded ${first.written} of ${run.rows.written} rows of table "${TABLE}" into tab "Results" and stopped to stay within Apps Script's 6-minute limit. Choose Skillsync › Refresh this tab on that tab to continue from row ${first.written + 2}.`,
    );
    expect(project.logs.join("\n")).toMatch(/could not schedule the follow-up run/);

    project.fetch.fetchMs = 300;
    const sentBefore = project.sent.length;
    project.spreadsheet.setActiveSheet(project.spreadsheet.getSheetByName("Results")!);
    expect(project.menu("Refresh this tab").error).toBeUndefined();
    const offsets = project.sent
      .slice(sentBefore)
      .map((r) => Number(new URL(r.url).searchParams.get("offset")));
    expect(offsets[0]).toBe(first.written);
    expect(tabCells(env, "Results")).toEqual(await serverCells(env));
  });

  it("halves the page size when an answer is larger than UrlFetch takes", async () => {
    const env = await addon.start();
    const { project } = env;
    await env.runPipeline("marketplace-search", { keyword: ["usb hub"] });
    project.fetch.responseLimit = 1000;
    const r = project.call("loadTable", { table: TABLE, columns: COLUMNS, tab: "Small", pageSize: 40 });
    expect(r.complete).toBe(true);
    const limits = project.sent.map((s) => Number(new URL(s.url).searchParams.get("limit")));
    expect(limits.slice(0, 3)).toEqual([40, 20, 10]);
    expect(tabCells(env, "Small")).toEqual(await serverCells(env));
  });
});
