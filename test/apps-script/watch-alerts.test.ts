import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { changedBetween, publishedPatents } from "../helpers/legal-status.js";
import { chromiumMissing, useChromium } from "./harness/chromium.js";
import type { FakeSheet } from "./harness/sheets.js";
import { type AddonEnv, useAddon } from "./setup.js";

const TABLE = "patent_legal_status";
const D = "2026-11-08";
const D7 = "2026-11-15";
const D14 = "2026-11-22";
const TIME = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d`;
const mode = chromiumMissing();
const addon = useAddon();

interface AlertJson {
  id: string;
  watch: string;
  table: string;
  key: string;
  column: string | null;
  change: string;
  old: string | null;
  new: string | null;
  loadId: number;
  changedAt: string;
}

/** The patents' legal status loaded at the emulator's date, beside the server on its warehouse, asking everything again. */
async function loadAt(env: AddonEnv, date: string, patents: string[]): Promise<number> {
  await env.backend.command({ type: "clock", date });
  const run = await env.backend.command<{ status: string; loads: { id: number }[] }>({
    type: "refresh-run",
    pipeline: "patent-legal-status",
    params: { patent: patents },
  });
  expect(run.status).toBe("succeeded");
  return run.loads[0]!.id;
}

/** Column letters of a header name in a tab the add-on wrote. */
function letterOf(sheet: FakeSheet, name: string): string {
  const col = (sheet.dump()[0] as string[]).indexOf(name);
  expect(col).toBeGreaterThanOrEqual(0);
  return String.fromCharCode(65 + col);
}

/**
 * A tab of the patents' current rows, as Load a table… writes it, with the keys of rows 2–21
 * selected after the user typed over two of them: a duplicate (row 5 = row 4) and a blank (row 7).
 * Returns the keys the selection names, in order, without the duplicate and the blank.
 */
async function selectKeys(env: AddonEnv, patents: string[]): Promise<{ tab: FakeSheet; keys: string[] }> {
  const { project } = env;
  await loadAt(env, D, patents);
  expect(project.call("loadTable", { table: `${TABLE}_current`, tab: "Patents" }).complete).toBe(true);
  const tab = project.spreadsheet.getSheetByName("Patents")!;
  const letter = letterOf(tab, "publication_number");
  const col = letter.charCodeAt(0) - 64;
  tab.type(5, col, [[tab.cellAt(4, col)]]);
  tab.type(7, col, [[""]]);
  const keys = [
    ...new Set(
      Array.from({ length: 20 }, (_, i) => String(tab.cellAt(i + 2, col)).trim()).filter((k) => k !== ""),
    ),
  ];
  expect(keys).toHaveLength(18);
  project.spreadsheet.select(tab, `${letter}1:${letter}21`);
  return { tab, keys };
}

/** The body of the last POST /watches the script sent. */
function lastWatchBody(env: AddonEnv): unknown {
  const posts = env.project.sent.filter((r) => r.method === "POST" && r.url.includes("/watches?"));
  return JSON.parse(posts.at(-1)!.body);
}

const MAX_PAGE = 10_000;

/** GET /alerts (every alert, oldest first) as the Alerts tab shows them: newest first, as cells. */
async function alertCells(env: AddonEnv): Promise<{ alerts: AlertJson[]; cells: unknown[][] }> {
  // The server's largest page: every alert these tests make fits in it.
  const r = await env.api("GET", `/alerts?limit=${MAX_PAGE}`);
  expect(r.status).toBe(200);
  const alerts = r.json.alerts as AlertJson[];
  const newest = [...alerts].sort(
    (a, b) => b.changedAt.localeCompare(a.changedAt) || b.loadId - a.loadId || b.id.localeCompare(a.id),
  );
  const cells = newest.map((a) => [
    a.changedAt.slice(0, 19).replace("T", " "),
    a.watch,
    a.table,
    a.key,
    a.change,
    a.column ?? "",
    a.old ?? "",
    a.new ?? "",
    a.loadId,
  ]);
  return { alerts, cells };
}

const HEADER = ["changed at", "watch", "table", "key", "change", "column", "old", "new", "load"];

describe("Watch these rows… and the Alerts tab", () => {
  it("a watch on the selected keys (deduplicated, blanks skipped), the server's refusals shown, and an Alerts tab equal to GET /alerts kept current by its trigger", async () => {
    const env = await addon.start();
    const { project } = env;
    const patents = publishedPatents(40, D);
    const { tab, keys } = await selectKeys(env, patents);
    const letter = letterOf(tab, "publication_number");

    // Refused before any window opens: two columns, a tab Skillsync did not fill.
    project.spreadsheet.select(tab, `A1:B5`);
    expect(project.menu("Watch these rows…").error).toBeUndefined();
    expect(project.ui.alerts.at(-1)?.message).toMatch(/^Select cells of one column only: the keys to watch/);
    project.spreadsheet.select(project.spreadsheet.getSheetByName("Sheet1")!, "A1:A3");
    expect(project.menu("Watch these rows…").error).toBeUndefined();
    expect(project.ui.alerts.at(-1)?.message).toBe(
      'Tab "Sheet1" was not filled by Skillsync, so which table its rows are of is unknown. Select the keys in a tab that Skillsync › Load a table… or Run a pipeline… filled.',
    );
    expect(project.ui.dialogs).toHaveLength(0);
    // A column that is not the table's key.
    const status = letterOf(tab, "simple_legal_status");
    project.spreadsheet.select(tab, `${status}1:${status}21`);
    expect(project.rpc("getWatchDialogData")).toEqual({
      ok: false,
      message: `Column "simple_legal_status" of tab "Patents" is not the key of table ${TABLE}: select cells of its publication_number column.`,
    });

    project.spreadsheet.select(tab, `${letter}1:${letter}21`);
    expect(project.menu("Watch these rows…").error).toBeUndefined();
    expect(project.ui.dialogs.at(-1)?.title).toBe("Skillsync: watch these rows");
    const data = project.call("getWatchDialogData");
    expect(data).toMatchObject({ table: TABLE, tab: "Patents", column: "publication_number", keys: 18 });
    expect(data.columns).toContain("simple_legal_status");
    for (const c of ["publication_number", "valid_from", "valid_to", "run_id", "load_id"])
      expect(data.columns).not.toContain(c);

    // Refused by the script: an amount that is not one.
    expect(
      project.rpc("createWatch", { name: "fell", condition: "fell_by", value: "lots", digest: "load" }),
    ).toEqual({
      ok: false,
      message:
        'Enter by how much it falls: a percentage such as 10% or an amount such as 5 (in the column\'s unit), not "lots".',
    });
    // Refused by the server (400), its reason shown: --fell-by on a text column.
    const text = project.rpc("createWatch", {
      name: "fell",
      columns: ["simple_legal_status"],
      condition: "fell_by",
      value: "10%",
      digest: "load",
    });
    expect(text.ok || text.message).toMatch(
      /^The Skillsync server refused POST \/watches: .*cannot apply: simple_legal_status is not numeric/s,
    );

    const made = project.call("createWatch", { name: "watched", condition: "any", digest: "none" });
    expect(made.message).toBe(
      `Watch "watched" created on 18 keys of table ${TABLE}: when any column changes; alerts are recorded (Skillsync › Show alerts), sent nowhere.`,
    );
    expect(made.warnings).toEqual([
      "no --notify or --email: alerts are recorded only (skillsync alerts, GET /alerts, the add-on's Alerts tab)",
    ]);
    expect(lastWatchBody(env)).toEqual({
      name: "watched",
      table: TABLE,
      keys: { list: keys },
      notify: { digest: "none" },
    });
    // The name is taken (409): said as the server says it; the failed attempts wrote nothing.
    const again = project.rpc("createWatch", { name: "watched", condition: "any", digest: "load" });
    expect(again.ok || again.message).toBe(
      'The Skillsync server refused POST /watches: a watch named "watched" already exists: remove it first (DELETE /watches/watched) or choose another name',
    );
    const watches = (await env.api("GET", "/watches")).json.watches;
    expect(watches.map((w: { name: string; keys: number }) => [w.name, w.keys])).toEqual([["watched", 18]]);

    // A week later the watched patents the emulator changed alert, and only they.
    await loadAt(env, D7, patents);
    const first = await alertCells(env);
    expect(new Set(first.alerts.map((a) => a.key))).toEqual(new Set(changedBetween(keys, D, D7)));
    expect(first.alerts.length).toBeGreaterThan(0);

    const said = project.ui.alerts.length;
    expect(project.menu("Show alerts").error).toBeUndefined();
    expect(project.ui.alerts).toHaveLength(said);
    const alertsTab = project.spreadsheet.getSheetByName("Alerts")!;
    expect(project.spreadsheet.getActiveSheet()).toBe(alertsTab);
    expect(project.spreadsheet.toasts.at(-1)?.message).toMatch(
      new RegExp(
        `^Tab "Alerts": ${first.cells.length} alerts? since \\d{4}-\\d\\d-\\d\\d\\. It refreshes every hour\\.$`,
      ),
    );
    expect(alertsTab.dump()).toEqual([HEADER, ...first.cells]);
    expect(alertsTab.frozenRows).toBe(1);
    expect(alertsTab.notes.get("1,1")).toMatch(
      new RegExp(
        `^Skillsync: alerts of every watch since \\d{4}-\\d\\d-\\d\\d \\(the last 30 days\\), newest first\\n${first.cells.length} alerts?, refreshed ${TIME} \\(refreshes every hour\\)$`,
      ),
    );
    expect(project.pendingTriggers().map((t) => t.handler)).toEqual(["skillsyncRefreshAlerts"]);

    // Another week: the hourly trigger rewrites the tab, the newest load's alerts first.
    const third = await loadAt(env, D14, patents);
    const second = await alertCells(env);
    expect(second.alerts.length).toBeGreaterThan(first.alerts.length);
    expect(project.fireNextTrigger()).toMatchObject({ error: undefined });
    expect(alertsTab.dump()).toEqual([HEADER, ...second.cells]);
    expect(alertsTab.dump()[1]![8]).toBe(third);
    expect(project.pendingTriggers()).toHaveLength(1);

    // Refresh this tab on it does the same; a tab Skillsync filled is no place to watch alerts from.
    expect(project.menu("Refresh this tab").error).toBeUndefined();
    expect(project.spreadsheet.toasts.at(-1)?.message).toMatch(/^Tab "Alerts": /);
    project.spreadsheet.select(alertsTab, "D1:D5");
    expect(project.menu("Watch these rows…").error).toBeUndefined();
    expect(project.ui.alerts.at(-1)?.message).toMatch(/^Tab "Alerts" lists alerts of several tables/);

    // The tab deleted: its trigger goes at its next firing.
    project.spreadsheet.deleteSheet(alertsTab);
    expect(project.fireNextTrigger()).toMatchObject({ error: undefined });
    expect(project.pendingTriggers()).toEqual([]);
  }, 120_000);

  it("never writes over a tab of the user's own named Alerts, and sets no trigger then", async () => {
    const { project } = await addon.start();
    const mine = project.spreadsheet.addSheet("Alerts");
    mine.type(1, 1, [["my alerts"], ["keep me"]]);
    expect(project.menu("Show alerts").error).toBeUndefined();
    expect(project.ui.alerts.at(-1)?.message).toBe(
      'Tab "Alerts" already holds other data. Rename that tab (or clear it), then choose Skillsync › Show alerts again, so none of your own cells are overwritten.',
    );
    expect(mine.dump()).toEqual([["my alerts"], ["keep me"]]);
    expect(project.pendingTriggers()).toEqual([]);
  });
});

/** The page's status line once it shows `kind` (ok or error), as the user reads it. */
async function statusOf(page: Page, kind: "ok" | "error"): Promise<string> {
  const box = page.locator(`#status.${kind}`);
  await box.waitFor({ state: "visible", timeout: 20_000 });
  return (await box.textContent()) ?? "";
}

describe.skipIf(mode === "skip")("Watch these rows…: the dialog in a real headless Chromium", () => {
  const chromium = useChromium();

  it("shows the selection, sends the watch with the selected keys and the form's settings, and shows warnings and refusals", async () => {
    const env = await addon.start();
    const { project } = env;
    const { keys } = await selectKeys(env, publishedPatents(30, D));
    expect(project.menu("Watch these rows…").error).toBeUndefined();
    const pages = await chromium.pageServer(project);
    const page = await chromium.newPage({ width: 560, height: 700 });
    await page.goto(pages.show("watch", project.ui.dialogs.at(-1)!.html.getContent()));
    await page.locator('#columns input[value="simple_legal_status"]').waitFor({ state: "attached" });
    expect(await page.textContent("#target")).toMatch(
      new RegExp(
        `^Watches 18 keys of table ${TABLE} \\(column publication_number, [A-Z]1:[A-Z]21 of tab "Patents"\\)\\.`,
      ),
    );

    await page.fill("#name", "lapsed");
    await page.check('#columns input[value="simple_legal_status"]');
    await page.selectOption("#condition", "to");
    expect(await page.isVisible("#value")).toBe(true);
    await page.fill("#value", "Inactive");
    await page.fill("#email", "ip@example.com\nlegal@example.com");
    await page.selectOption("#digest", "day");
    await page.click("#create");
    expect(await statusOf(page, "ok")).toBe(
      `Watch "lapsed" created on 18 keys of table ${TABLE}: when simple_legal_status changes to Inactive; one message per day to 2 e-mail addresses.`,
    );
    const warnings = await page.locator("#warnings li").allTextContents();
    expect(warnings.join("\n")).toMatch(/SKILLSYNC_SMTP_URL/);
    expect(lastWatchBody(env)).toEqual({
      name: "lapsed",
      table: TABLE,
      keys: { list: keys },
      columns: ["simple_legal_status"],
      when: { to: "Inactive" },
      notify: { email: ["ip@example.com", "legal@example.com"], digest: "day" },
    });

    // The same name again: the server's refusal, in the page.
    await page.click("#create");
    expect(await statusOf(page, "error")).toBe(
      'The Skillsync server refused POST /watches: a watch named "lapsed" already exists: remove it first (DELETE /watches/lapsed) or choose another name',
    );
    expect(await page.locator("#warnings li").count()).toBe(0);
    expect(pages.calls.map((c) => [c.fn, c.ok])).toEqual([
      ["getWatchDialogData", true],
      ["createWatch", true],
      ["createWatch", false],
    ]);
  }, 90_000);
});
