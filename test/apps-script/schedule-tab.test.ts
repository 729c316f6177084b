import { type ChildProcess, spawn } from "node:child_process";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { type SheetsFake, startSheetsFake } from "../fakes/sheets-fake.js";
import { DEMO_KEY } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { until } from "../helpers/until.js";
import { chromiumMissing, useChromium } from "./harness/chromium.js";
import type { PageServer } from "./harness/page-server.js";
import { type AddonEnv, SECRET, useAddon } from "./setup.js";

const mode = chromiumMissing();
const addon = useAddon();
/** The fake spreadsheet's id and time zone (test/apps-script/harness/sheets.ts). */
const SPREADSHEET = "fake-spreadsheet-id";
const ZONE = "Etc/UTC";

/** The page's status line once it shows `kind` and `text`, as the user reads it. */
async function status(page: Page, kind: "ok" | "error", text: RegExp): Promise<string> {
  const box = page.locator(`#status.${kind}`, { hasText: text });
  await box.waitFor({ state: "visible", timeout: 15_000 });
  return (await box.textContent()) ?? "";
}

// biome-ignore lint/suspicious/noExplicitAny: JSON from the server, asserted by tests
async function schedules(env: AddonEnv): Promise<any[]> {
  const r = await env.api("GET", `/schedules?spreadsheet=${SPREADSHEET}`);
  expect(r.status).toBe(200);
  return r.json.schedules;
}

/** The cells of a schedule's row in the dialog's list, as the user reads them. */
async function listed(page: Page, id: string): Promise<string[]> {
  const row = page.locator(`#schedules tr[data-id="${id}"]`);
  await row.waitFor({ state: "attached", timeout: 15_000 });
  return row.locator("td").allTextContents();
}

/** An ISO time as the dialog shows it in the spreadsheet's zone (UTC here): "2024-05-01 07:30". */
const shown = (iso: string) => iso.slice(0, 16).replace("T", " ");
const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;

/**
 * A second `skillsync serve` on the add-on's warehouse, as a real process, once it has started:
 * every serve on a warehouse fires its schedules, writing the tabs through Google Sheets (here a
 * local fake).
 */
async function serveFiring(env: AddonEnv, sheets: SheetsFake, children: ChildProcess[]): Promise<void> {
  const args = ["serve", "--port", "0", "--db", env.warehouseUrl, "--base-url", env.emulatorUrl];
  const child = spawn(process.execPath, nodeEntry("cli/run.ts", ...args), {
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      SKILL_API_KEY: DEMO_KEY,
      SKILLSYNC_SERVER_SECRET: SECRET,
      SKILLSYNC_SHEETS_API_URL: sheets.url,
      SKILLSYNC_SHEETS_ACCESS_TOKEN: sheets.token,
      GOOGLE_APPLICATION_CREDENTIALS: "",
    },
  });
  children.push(child);
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`skillsync serve exited ${child.exitCode}:\n${out}`);
      return out.includes("Press Ctrl+C to stop.");
    },
    30_000,
    "skillsync serve to start",
  );
}

describe.skipIf(mode === "skip")("Schedule this tab…", () => {
  const chromium = useChromium();
  let pages: PageServer | undefined;
  const children: ChildProcess[] = [];
  const fakes: SheetsFake[] = [];

  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const exited = new Promise((resolve) => c.once("exit", resolve));
      c.kill("SIGKILL");
      await exited;
    }
    for (const f of fakes.splice(0)) await f.stop();
  });

  /** A tab filled from a run of marketplace-search ("Results"), active, and the dialog opened on it. */
  async function openOnRunTab(): Promise<{ env: AddonEnv; page: Page }> {
    const env = await addon.start();
    const { project } = env;
    const opened = await chromium.pageServer(project);
    pages = opened;
    const run = await env.runPipeline("marketplace-search", { keyword: ["usb hub"] });
    expect(project.call("writeRunTable", run.runId, "Results")).toMatchObject({ complete: true });
    project.spreadsheet.setActiveSheet(project.spreadsheet.getSheetByName("Results")!);
    expect(project.menu("Schedule this tab…").error).toBeUndefined();
    const dialog = project.ui.dialogs.at(-1)!;
    expect(dialog.title).toBe("Skillsync: schedule this tab");
    const page = await chromium.newPage({ width: 720, height: 640 });
    await page.goto(opened.show("schedule", dialog.html.getContent()));
    await page.locator('#pipeline option[value="marketplace-search"]').waitFor({ state: "attached" });
    await page.locator("#schedules tr").first().waitFor({ state: "attached" });
    return { env, page };
  }

  it("creates a daily schedule of the tab's pipeline, lists it and deletes it", async () => {
    const { env, page } = await openOnRunTab();
    // The tab was filled by a run of marketplace-search: that pipeline is chosen.
    expect(await page.inputValue("#pipeline")).toBe("marketplace-search");
    expect(await page.textContent("#target")).toContain('tab "Results" of this spreadsheet');
    expect(await page.textContent("#service-account")).toMatch(
      /share this spreadsheet with that account \(its client_email\) as an Editor/,
    );
    expect(await page.textContent("#zone")).toContain(`time zone, ${ZONE}`);
    expect(await page.locator("#schedules td").allTextContents()).toEqual([
      "No schedules for this spreadsheet yet.",
    ]);

    await page.fill("#param-keyword", "usb hub\ndesk lamp");
    await page.selectOption("#frequency", "daily");
    expect(await page.locator("#day").isHidden()).toBe(true);
    await page.fill("#time", "07:30");
    await page.fill("#cap", "5");
    await page.click("#create");
    const said = await status(page, "ok", /^Scheduled/);

    const [made, ...others] = await schedules(env);
    expect(others).toEqual([]);
    expect(made).toMatchObject({
      pipeline: "marketplace-search",
      params: expect.objectContaining({ keyword: ["usb hub", "desk lamp"] }),
      cron: "30 7 * * *",
      timezone: ZONE,
      spreadsheet: SPREADSHEET,
      tab: "Results",
      maxCredits: 5,
      paused: false,
      last: null,
    });
    expect(made.nextRunAt).toMatch(/T07:30:00(\.000)?Z$/);
    expect(said).toBe(
      `Scheduled marketplace-search into tab "Results" daily at 07:30, at most 5 credits a run; next run ${shown(made.nextRunAt)}.`,
    );
    expect(await listed(page, made.id)).toEqual([
      "marketplace-search",
      "Results",
      "daily at 07:30",
      shown(made.nextRunAt),
      "not run yet",
      "Delete",
    ]);

    await page.locator(`#schedules tr[data-id="${made.id}"] button`).click();
    await status(page, "ok", /^Schedule deleted: no more runs from it\.$/);
    await page.locator(`#schedules tr[data-id="${made.id}"]`).waitFor({ state: "detached" });
    expect(await page.locator("#schedules td").allTextContents()).toEqual([
      "No schedules for this spreadsheet yet.",
    ]);
    expect(await schedules(env)).toEqual([]);
    expect(pages!.calls).toEqual([
      { fn: "getScheduleDialogData", ok: true },
      { fn: "createSchedule", ok: true },
      { fn: "deleteSchedule", ok: true },
    ]);
    const deletes = env.project.sent.filter((r) => r.method === "DELETE");
    expect(deletes.map((r) => new URL(r.url).pathname)).toEqual([`/schedules/${made.id}`]);
  }, 60_000);

  it("turns weekly on a day at a time into a 5-field cron and says it in words", async () => {
    const { env, page } = await openOnRunTab();
    await page.fill("#param-keyword", "usb hub");
    await page.selectOption("#frequency", "weekly");
    await page.selectOption("#day", "1");
    await page.fill("#time", "07:30");
    await page.click("#create");
    await status(page, "ok", /weekly on Monday at 07:30/);

    await page.selectOption("#day", "0");
    await page.fill("#time", "18:05");
    await page.click("#create");
    await status(page, "ok", /weekly on Sunday at 18:05/);

    const made = await schedules(env);
    expect(made.map((s) => s.cron)).toEqual(["30 7 * * 1", "5 18 * * 0"]);
    expect(new Date(made[0].nextRunAt).getUTCDay()).toBe(1);
    expect(new Date(made[1].nextRunAt).getUTCDay()).toBe(0);
    expect((await listed(page, made[0].id))[2]).toBe("weekly on Monday at 07:30");
    expect((await listed(page, made[1].id))[2]).toBe("weekly on Sunday at 18:05");
  }, 60_000);

  it("lists how each schedule's last run went once a server has fired it, in the spreadsheet's zone", async () => {
    const sheets = await startSheetsFake();
    fakes.push(sheets);
    sheets.createSpreadsheet(SPREADSHEET, [{ title: "Results" }, { title: "Capped" }]);
    const env = await addon.start();
    const { project } = env;
    const opened = await chromium.pageServer(project);
    pages = opened;
    project.spreadsheet.addSheet("Results");
    project.spreadsheet.addSheet("Capped");
    await serveFiring(env, sheets, children);
    // One tick, after the running server has seen the new schedules (it looks every 5 s): a cron
    // with seconds, in UTC (the spreadsheet's zone).
    const at = new Date(Math.ceil((Date.now() + 11_000) / 1000) * 1000);
    const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
    const form = { pipeline: "marketplace-search", frequency: "cron", cron };
    project.call("createSchedule", {
      ...form,
      params: { keyword: "usb hub" },
      maxCredits: 5,
      tab: "Results",
    });
    // Three calls under a cap of one credit: the run stops at its ceiling. (Other keywords than the
    // first schedule's: the two runs go at the same second, and rows of one key keep one run's id.)
    const capped = { keyword: ["desk lamp", "garden hose", "office chair"] };
    project.call("createSchedule", { ...form, params: capped, maxCredits: 1, tab: "Capped" });

    // biome-ignore lint/suspicious/noExplicitAny: JSON from the server, asserted by tests
    const fired: any[] = await until(
      async () => {
        const list = await schedules(env);
        return list.length === 2 && list.every((s) => s.last?.finishedAt) && list;
      },
      45_000,
      "both schedules' first run",
    );
    const [results, ceiling] = fired;
    expect(results.last).toMatchObject({ outcome: "succeeded", runId: expect.any(String) });
    expect(results.last.rows).toBeGreaterThan(0);
    expect(ceiling.last).toMatchObject({ outcome: "ceiling", note: expect.any(String) });
    expect(sheets.values(SPREADSHEET, "Results").length).toBe(1 + results.last.rows);

    expect(project.menu("Schedule this tab…").error).toBeUndefined();
    const page = await chromium.newPage();
    await page.goto(opened.show("schedule", project.ui.dialogs.at(-1)!.html.getContent()));
    const pad = (n: number) => String(n).padStart(2, "0");
    const when = `daily at ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}${at.getUTCSeconds() ? `:${pad(at.getUTCSeconds())}` : ""}`;
    expect(await listed(page, results.id)).toEqual([
      "marketplace-search",
      "Results",
      when,
      shown(results.nextRunAt),
      `succeeded · ≈${plural(results.last.credits, "credit")} · ${plural(results.last.rows, "row")} · ${shown(results.last.finishedAt)}`,
      "Delete",
    ]);
    // A run that did not load says why instead of its figures, in red.
    expect(await listed(page, ceiling.id)).toEqual([
      "marketplace-search",
      "Capped",
      when,
      shown(ceiling.nextRunAt),
      `ceiling · ${ceiling.last.note} · ${shown(ceiling.last.finishedAt)}`,
      "Delete",
    ]);
    const cells = (id: string) => page.locator(`#schedules tr[data-id="${id}"] td`).nth(4);
    expect(await cells(ceiling.id).getAttribute("style")).toBe("color: #d93025");
    expect(await cells(results.id).getAttribute("style")).toBeNull();
  }, 90_000);

  it("shows the server's message for a bad cron expression, and creates nothing", async () => {
    const { env, page } = await openOnRunTab();
    await page.fill("#param-keyword", "usb hub");
    await page.selectOption("#frequency", "cron");
    expect(await page.locator("#time").isHidden()).toBe(true);
    // Refused by the script before anything is sent.
    await page.click("#create");
    expect(await status(page, "error", /cron/)).toBe(
      "Enter a cron expression, e.g. 30 7 * * 1-5 for 07:30 on weekdays.",
    );
    // Refused by the server, its reason shown as it wrote it.
    await page.fill("#cron", "61 7 * * *");
    await page.click("#create");
    // The member that is wrong, and the value.
    expect(await status(page, "error", /refused/)).toMatch(
      /^The Skillsync server refused POST \/schedules: [\s\S]*\bcron\b[\s\S]*\b61\b/,
    );
    expect(await schedules(env)).toEqual([]);
    expect(env.project.sent.filter((r) => r.method === "POST").length).toBe(1);
  }, 60_000);
});

describe("Schedule this tab…: the script's checks", () => {
  it("refuses a tab holding the user's own data, and chooses no pipeline for it", async () => {
    const env = await addon.start();
    const { project } = env;
    const own = project.spreadsheet.getSheets()[0]!;
    own.type(1, 1, [["keyword"], ["usb hub"]]);
    const data = project.call("getScheduleDialogData");
    expect(data).toMatchObject({ tab: "Sheet1", pipeline: null, timezone: ZONE, schedules: [] });
    const form = {
      pipeline: "marketplace-search",
      params: { keyword: ["usb hub"] },
      maxCredits: 5,
      frequency: "daily",
      time: "07:30",
      tab: "Sheet1",
    };
    expect(project.rpc("createSchedule", form)).toEqual({
      ok: false,
      message: expect.stringMatching(/^Tab "Sheet1" holds data that Skillsync did not write/),
    });
    expect(project.rpc("createSchedule", { ...form, tab: "Gone" })).toEqual({
      ok: false,
      message: expect.stringMatching(/^Tab "Gone" is not in this spreadsheet any more/),
    });
    expect(project.rpc("createSchedule", { ...form, tab: "Sheet1", time: "7.30" })).toEqual({
      ok: false,
      message: "Enter the time of day as HH:MM on a 24-hour clock, e.g. 07:30.",
    });
    // A tab the server refreshed on a schedule before (its note says so) may be scheduled again.
    const pushed = project.spreadsheet.addSheet("Pushed");
    pushed.type(1, 1, [["keyword"], ["usb hub"]]);
    pushed
      .getRange(1, 1)
      .setNote("Skillsync: scheduled refresh of marketplace-search (30 7 * * *, UTC; schedule s1)");
    expect(project.call("createSchedule", { ...form, tab: "Pushed" }).schedules).toHaveLength(1);
    // An empty new tab may be scheduled.
    project.spreadsheet.addSheet("Daily");
    const made = project.call("createSchedule", { ...form, tab: "Daily" });
    expect(made.schedules).toEqual([
      expect.objectContaining({ tab: "Pushed" }),
      expect.objectContaining({ tab: "Daily", when: "daily at 07:30", last: "not run yet" }),
    ]);
    expect(project.sent.filter((r) => r.method === "POST").map((r) => new URL(r.url).pathname)).toEqual([
      "/schedules",
      "/schedules",
    ]);
  });

  it("lists schedules made elsewhere: another zone, a history table's tab, crons not in words", async () => {
    const env = await addon.start();
    const base = {
      params: { keyword: ["usb hub"] },
      maxCredits: 5,
      spreadsheet: SPREADSHEET,
      tab: "Results",
    };
    const made = [
      { ...base, pipeline: "marketplace-search", cron: "30 7 * * *", timezone: "Europe/Berlin" },
      { ...base, pipeline: "marketplace-search", cron: "0 30 7 * * 1", timezone: ZONE },
      { ...base, pipeline: "marketplace-search", cron: "*/15 * * * *", timezone: ZONE },
      { ...base, pipeline: "marketplace-search", cron: "30 7 * * 1-5", timezone: ZONE },
      {
        ...base,
        pipeline: "patent-legal-status",
        params: { patent: ["US11234567B2"] },
        cron: "0 6 1 * *",
        timezone: ZONE,
        tab: "Legal",
      },
    ];
    // biome-ignore lint/suspicious/noExplicitAny: JSON from the server, asserted by tests
    const views: any[] = [];
    for (const body of made) {
      const r = await env.api("POST", "/schedules", body);
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      views.push(r.json.schedule);
    }
    expect(views.map((v) => v.mode)).toEqual(["replace", "replace", "replace", "replace", "append"]);
    const rows = env.project.call("listSchedules");
    expect(rows.map((r: { when: string }) => r.when)).toEqual([
      // The cron's own zone is said when it is not the spreadsheet's; the next run is in the spreadsheet's.
      "daily at 07:30 (Europe/Berlin)",
      "weekly on Monday at 07:30",
      "cron */15 * * * *",
      "cron 30 7 * * 1-5",
      "cron 0 6 1 * *",
    ]);
    expect(rows.map((r: { next: string }) => r.next)).toEqual(views.map((v) => shown(v.nextRunAt)));
    expect(rows[0].next).toMatch(/ 0[56]:30$/);
    expect(rows.map((r: { tab: string }) => r.tab)).toEqual([
      "Results",
      "Results",
      "Results",
      "Results",
      "Legal (rows appended)",
    ]);
  });
});
