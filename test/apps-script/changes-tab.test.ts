import { sql } from "kysely";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { changedBetween, publishedPatents } from "../helpers/legal-status.js";
import { chromiumMissing, useChromium } from "./harness/chromium.js";
import { type AddonEnv, useAddon } from "./setup.js";

const TABLE = "patent_legal_status";
const D = "2026-11-08";
const D7 = "2026-11-15";
const D14 = "2026-11-22";
const TIME = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d`;
const mode = chromiumMissing();
const addon = useAddon();

interface Load {
  id: number;
  versionsNew: number;
}

/**
 * Loads the patents' legal status at the emulator's date `date`, beside the server on its warehouse
 * and asking everything again (the pipeline's 7-day freshness would answer from the store).
 */
async function loadAt(env: AddonEnv, date: string, patents: string[]): Promise<Load> {
  await env.backend.command({ type: "clock", date });
  const run = await env.backend.command<{ status: string; loads: Load[] }>({
    type: "refresh-run",
    pipeline: "patent-legal-status",
    params: { patent: patents },
  });
  expect(run.status).toBe("succeeded");
  return run.loads[0]!;
}

/** The `<table>_changes` view queried directly on the server's warehouse file, as rows of cells. */
async function viewCells(env: AddonEnv, header: string[], where: string, value: unknown): Promise<string[]> {
  const w = await openWarehouse(env.warehouseUrl);
  try {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(`${TABLE}_changes`)}
      where ${sql.ref(where)} ${sql.raw(where === "load_id" ? "=" : ">=")} ${value}`.execute(w.db);
    return rows.map((r) => JSON.stringify(header.map((c) => r[c] ?? ""))).sort();
  } finally {
    await w.close();
  }
}

/** The day (UTC) of the view's first change: when the first load came. */
async function firstChangeDay(env: AddonEnv): Promise<string> {
  const w = await openWarehouse(env.warehouseUrl);
  try {
    const { rows } = await sql<{
      at: string;
    }>`select min(changed_at) as at from ${sql.table(`${TABLE}_changes`)}`.execute(w.db);
    return new Date(rows[0]!.at).toISOString().slice(0, 10);
  } finally {
    await w.close();
  }
}

function tab(env: AddonEnv, name: string) {
  const sheet = env.project.spreadsheet.getSheetByName(name);
  if (!sheet) throw new Error(`no tab "${name}"`);
  const cells = sheet.dump();
  return {
    sheet,
    header: cells[0] as string[],
    rows: cells
      .slice(1)
      .map((r) => JSON.stringify(r))
      .sort(),
    column: (name: string) => cells.slice(1).map((r) => r[(cells[0] as string[]).indexOf(name)]),
    note: sheet.notes.get("1,1") ?? "",
  };
}

/** The page's status line once it shows `kind` (ok or error), as the user reads it. */
async function status(page: Page, kind: "ok" | "error"): Promise<string> {
  const box = page.locator(`#status.${kind}`);
  await box.waitFor({ state: "visible", timeout: 20_000 });
  return (await box.textContent()) ?? "";
}

describe.skipIf(mode === "skip")("Load a table…: what changed in a history table, in a tab", () => {
  const chromium = useChromium();

  /** The Load dialog as the menu opens it, in the browser. */
  async function openDialog(env: AddonEnv): Promise<Page> {
    expect(env.project.menu("Load a table…").error).toBeUndefined();
    const pages = await chromium.pageServer(env.project);
    const page = await chromium.newPage({ width: 520, height: 700 });
    await page.goto(pages.show("load", env.project.ui.dialogs.at(-1)!.html.getContent()));
    await page.locator(`#table option[value="${TABLE}"]`).waitFor({ state: "attached" });
    return page;
  }

  it("the latest load's changes and the changes since a date, each exactly as the view has them; Refresh takes the newest load", async () => {
    const env = await addon.start();
    const { project } = env;
    const patents = publishedPatents(100, D);
    const first = await loadAt(env, D, patents);
    const second = await loadAt(env, D7, patents);
    const changed = changedBetween(patents, D, D7);
    // The emulator moves a partial share in a week: changes and non-changes both.
    expect(changed.length).toBeGreaterThan(3);
    expect(second.versionsNew).toBe(changed.length);

    const page = await openDialog(env);
    // A table without history offers only its rows.
    await page.selectOption("#table", "patent_legal_events");
    expect(await page.isHidden("#what-field")).toBe(true);
    await page.selectOption("#table", TABLE);
    expect(await page.isVisible("#what-field")).toBe(true);
    expect(await page.inputValue("#tab")).toBe(TABLE);

    // Current rows, the default for a history table: each patent's latest version, one row per key.
    expect(await page.isChecked('input[name="what"][value="current"]')).toBe(true);
    await page.click("button.action");
    expect(await status(page, "ok")).toMatch(new RegExp(`of table "${TABLE}_current" into tab "${TABLE}"`));
    const current = tab(env, TABLE);
    expect(current.header).not.toContain("valid_to");
    expect(current.column("publication_number").sort()).toEqual([...patents].sort());
    // Every version: the whole table, a patent changed in the week twice.
    await page.check('input[name="what"][value="rows"]');
    expect(await page.inputValue("#tab")).toBe(`${TABLE} versions`);
    await page.click("button.action");
    expect(await status(page, "ok")).toMatch(new RegExp(`of table "${TABLE}" into tab "${TABLE} versions"`));
    expect(tab(env, `${TABLE} versions`).rows).toHaveLength(patents.length + changed.length);
    await page.check('input[name="what"][value="last"]');
    expect(await page.inputValue("#tab")).toBe(`${TABLE} latest changes`);
    const boxes = await Promise.all(
      (await page.locator("#columns input").all()).map(async (b) => (await b.getAttribute("value")) ?? ""),
    );
    expect(boxes).toEqual([
      "publication_number",
      "change",
      "column_name",
      "old_value",
      "new_value",
      "load_id",
      "changed_at",
    ]);
    await page.click("button.action");
    const lastTab = `${TABLE} latest changes`;
    expect(await status(page, "ok")).toMatch(
      new RegExp(
        `^Loaded \\d+ rows of the changes of table "${TABLE}" made by the latest load \\(load ${second.id}\\) into tab "${lastTab}"\\.$`,
      ),
    );

    // Exactly the patents the emulator changed, exactly the rows the view has for that load.
    const latest = tab(env, lastTab);
    expect(latest.header).toEqual(boxes);
    expect(new Set(latest.column("publication_number"))).toEqual(new Set(changed));
    expect(latest.rows).toEqual(await viewCells(env, latest.header, "load_id", second.id));
    expect(latest.note).toMatch(
      new RegExp(
        `^Skillsync: changes of ${TABLE} made by the latest load \\(load ${second.id}\\)\\n${latest.rows.length} rows, loaded ${TIME}$`,
      ),
    );
    expect(project.sent.filter((r) => r.url.includes(`/changes/${TABLE}?`)).length).toBeGreaterThan(0);

    // Since a date: the day of the first load, so its additions come too.
    const day = await firstChangeDay(env);
    await page.fill("#since", day);
    expect(await page.isChecked('input[name="what"][value="since"]')).toBe(true);
    expect(await page.inputValue("#tab")).toBe(`${TABLE} changes since ${day}`);
    await page.click("button.action");
    expect(await status(page, "ok")).toMatch(
      new RegExp(
        `^Loaded \\d+ rows of the changes of table "${TABLE}" since ${day} into tab "${TABLE} changes since ${day}"\\.$`,
      ),
    );
    const since = tab(env, `${TABLE} changes since ${day}`);
    expect(since.rows).toEqual(await viewCells(env, since.header, "changed_at", `${day}T00:00:00.000Z`));
    expect(since.rows).toHaveLength(patents.length + latest.rows.length);
    expect(new Set(since.column("load_id"))).toEqual(new Set([first.id, second.id]));
    expect(since.note).toMatch(
      new RegExp(`^Skillsync: changes of ${TABLE} since ${day}\\n${since.rows.length} rows, loaded ${TIME}$`),
    );

    // A date that is not one is refused in the dialog, by the script.
    await page.fill("#since", "");
    await page.click("button.action");
    expect(await status(page, "error")).toBe(
      "Pick the date the changes start from (a date like 2026-11-01).",
    );

    // Another week, another load: Refresh this tab shows the changes of the load that is now the latest.
    const third = await loadAt(env, D14, patents);
    const changedAgain = changedBetween(patents, D7, D14);
    expect(changedAgain.length).toBeGreaterThan(0);
    project.spreadsheet.setActiveSheet(latest.sheet);
    expect(project.menu("Refresh this tab").error).toBeUndefined();
    expect(project.spreadsheet.toasts.at(-1)?.message).toMatch(
      new RegExp(`made by the latest load \\(load ${third.id}\\) into tab "${lastTab}"\\.$`),
    );
    const refreshed = tab(env, lastTab);
    expect(new Set(refreshed.column("publication_number"))).toEqual(new Set(changedAgain));
    expect(refreshed.rows).toEqual(await viewCells(env, refreshed.header, "load_id", third.id));
    expect(refreshed.note).toMatch(new RegExp(`made by the latest load \\(load ${third.id}\\)\\n`));

    // The dialog opened on that tab proposes the same load again.
    const again = project.call("getLoadDialogData");
    expect(again.current).toMatchObject({ table: TABLE, what: "last", since: null });
    expect(again.tables.find((t: { name: string }) => t.name === TABLE).changeColumns).toEqual(boxes);
    expect(
      again.tables.find((t: { name: string }) => t.name === "patent_legal_events").changeColumns,
    ).toBeNull();
  }, 90_000);
});
