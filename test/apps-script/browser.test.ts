import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumMissing, useChromium } from "./harness/chromium.js";
import type { PageServer } from "./harness/page-server.js";
import { type AddonEnv, useAddon } from "./setup.js";

// The screenshots shown in docs/apps-script.md are refreshed on purpose
// (SKILLSYNC_UPDATE_SCREENSHOTS=1); other runs take theirs into a temporary folder.
const DOCS_IMG = process.env["SKILLSYNC_UPDATE_SCREENSHOTS"]
  ? new URL("../../docs/img/", import.meta.url).pathname
  : `${mkdtempSync(join(tmpdir(), "skillsync-screens-"))}/`;
// The temporary screenshots go with the file's tests; the docs' are kept.
afterAll(() => {
  if (!process.env["SKILLSYNC_UPDATE_SCREENSHOTS"]) rmSync(DOCS_IMG, { recursive: true, force: true });
});
const TABLE = "marketplace_search_results";
const mode = chromiumMissing();
const addon = useAddon();

/** The page's status line once it shows `kind` (ok or error), as the user reads it. */
async function status(page: Page, kind: "ok" | "error", timeout = 15_000): Promise<string> {
  const box = page.locator(`#status.${kind}`);
  await box.waitFor({ state: "visible", timeout });
  return (await box.textContent()) ?? "";
}

describe.skipIf(mode === "skip")("the add-on's pages in a real headless Chromium", () => {
  const chromium = useChromium();
  let pages: PageServer | undefined;

  beforeAll(() => {
    mkdirSync(DOCS_IMG, { recursive: true });
  });

  async function start(): Promise<AddonEnv> {
    const env = await addon.start();
    pages = await chromium.pageServer(env.project);
    return env;
  }

  /** Opens what the script showed (a sidebar 300 px wide, as Google draws it, or a dialog). */
  async function open(name: string, html: string, width: number, height: number): Promise<Page> {
    const page = await chromium.newPage({ width, height });
    await page.goto(pages!.show(name, html));
    return page;
  }

  it("Run a pipeline…: errors shown, then a run started, polled and written to a tab", async () => {
    const { project } = await start();
    expect(project.menu("Run a pipeline…").error).toBeUndefined();
    const page = await open("run", project.ui.sidebars.at(-1)!.getContent(), 300, 900);
    await page.locator('#pipeline option[value="marketplace-search"]').waitFor({ state: "attached" });
    await page.selectOption("#pipeline", "marketplace-search");
    expect(await page.inputValue("#tab")).toBe("marketplace-search");

    // Refused by the script before anything is sent.
    await page.fill("#cap", "0");
    await page.click("#run");
    expect(await status(page, "error")).toBe(
      "Set a credit cap: the most credits this run may spend (a number above 0).",
    );
    // Refused by the server, its reason shown as it wrote it.
    await page.fill("#cap", "60");
    await page.fill("#param-keyword", "usb hub");
    await page.click("#run");
    expect(await status(page, "error")).toMatch(/60 is above the server's ceiling of 50 credits/);

    await page.fill("#cap", "10");
    await page.fill("#param-keyword", "usb hub\ndesk lamp");
    await page.fill("#tab", "Browser run");
    await page.click("#run");
    await page.locator("#progress").waitFor({ state: "visible" });
    const done = await status(page, "ok", 40_000);
    expect(done).toMatch(/^Loaded \d+ rows of table "marketplace_search_results" where run_id = r\d+/);
    expect(await page.textContent("#line")).toMatch(
      /^succeeded · 2 of 2 calls · ≈\d+ of 10 credits · \d+ rows$/,
    );
    const rows = project.spreadsheet.getSheetByName("Browser run")!.dump();
    expect(rows.length).toBeGreaterThan(10);
    expect(new Set(rows.slice(1).map((r) => r[0]))).toEqual(new Set(["usb hub", "desk lamp"]));
    expect(pages!.calls.map((c) => c.fn)).toEqual(
      expect.arrayContaining(["getRunSidebarData", "startRun", "pollRun", "writeRunTable"]),
    );
    await page.screenshot({ path: `${DOCS_IMG}apps-script-run-sidebar.png`, fullPage: true });
  }, 60_000);

  it("Load a table…: errors shown, then the table loaded into a tab", async () => {
    const env = await start();
    const { project } = env;
    expect(
      (await env.runPipeline("marketplace-search", { keyword: ["usb hub", "garden hose"] })).status,
    ).toBe("succeeded");
    expect(project.menu("Load a table…").error).toBeUndefined();
    const page = await open("load", project.ui.dialogs.at(-1)!.html.getContent(), 520, 600);
    await page.locator(`#table option[value="${TABLE}"]`).waitFor({ state: "attached" });
    await page.selectOption("#table", TABLE);

    // Nothing ticked: said in the page itself.
    const boxes = page.locator("#columns input");
    for (const box of await boxes.all()) await box.uncheck();
    await page.click("button.action");
    expect(await status(page, "error")).toBe("Tick at least one column.");
    for (const box of await boxes.all()) await box.check();
    // Refused by the script.
    await page.fill("#page-size", "0");
    await page.click("button.action");
    expect(await status(page, "error")).toMatch(/^Rows per page must be a whole number from 1 to /);

    await page.locator('#columns input[value="run_id"]').uncheck();
    await page.fill("#page-size", "500");
    await page.fill("#tab", "Loaded");
    await page.click("button.action");
    expect(await status(page, "ok")).toMatch(/^Loaded \d+ rows of table "marketplace_search_results"/);
    const served = await env.api("GET", `/tables/${TABLE}?limit=5000`);
    const tab = project.spreadsheet.getSheetByName("Loaded")!.dump();
    expect(tab).toHaveLength(1 + served.json.rows.length);
    expect(tab[0]).not.toContain("run_id");
    await page.screenshot({ path: `${DOCS_IMG}apps-script-load-dialog.png`, fullPage: true });
  }, 40_000);
});
