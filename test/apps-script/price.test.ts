import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { LedgerSnapshot } from "../../emulator/index.js";
import { cli } from "../helpers/cli.js";
import { chromiumMissing, useChromium } from "./harness/chromium.js";
import type { PageServer } from "./harness/page-server.js";
import { type AddonEnv, useAddon } from "./setup.js";

const mode = chromiumMissing();
const addon = useAddon();

/** The figures of `skillsync plan --json` the sidebar shows (engine/run/plan.ts). */
interface CliPlan {
  credits: number;
  creditsAtMost: number;
  pipelines: {
    calls: number;
    fromStore: number;
    items?: { asked: number; fromStore: number; toPay: number };
  }[];
}

/** What the real CLI plans for these params over the server's own warehouse file. */
async function cliPlan(env: AddonEnv, pipeline: string, params: [string, string][]): Promise<CliPlan> {
  const flags = params.flatMap(([name, value]) => ["--param", `${name}=${value}`]);
  const r = await cli(["plan", pipeline, ...flags, "--db", env.warehouseUrl, "--json"]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as CliPlan;
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The sidebar's price line for a plan, written out from the CLI's figures. */
function priceLine(plan: CliPlan): string {
  const p = plan.pipelines[0]!;
  const credits =
    plan.credits === plan.creditsAtMost
      ? count(plan.credits, "credit")
      : `${count(plan.credits, "credit")} for the first pages, at most ${plan.creditsAtMost}`;
  const stored = p.items
    ? `${p.items.fromStore} of ${count(p.items.asked, "identifier")} from the store`
    : `${p.fromStore} from the store`;
  return `${count(p.calls, "call")} · ${credits} · ${stored}`;
}

async function ledger(env: AddonEnv): Promise<Pick<LedgerSnapshot, "totalCalls" | "totalCredits">> {
  const l = (await (await fetch(`${env.emulatorUrl}/__emulator/ledger`)).json()) as LedgerSnapshot;
  return { totalCalls: l.totalCalls, totalCredits: l.totalCredits };
}

/** Waits until the price shows `line` (the sidebar asks once typing pauses). */
async function priceShows(page: Page, line: string): Promise<void> {
  await expect.poll(() => page.textContent("#price"), { timeout: 20_000, interval: 50 }).toBe(line);
}

/** The warning under the price, "" when it is hidden. */
async function warning(page: Page): Promise<string> {
  const box = page.locator("#price-warning");
  return (await box.isVisible()) ? ((await box.textContent()) ?? "") : "";
}

describe.skipIf(mode === "skip")("the run sidebar's price, before Run is pressed", () => {
  const chromium = useChromium();
  let pages: PageServer | undefined;

  /** The sidebar as the menu item opens it, in Chromium, with its pipelines listed. */
  async function openSidebar(env: AddonEnv): Promise<Page> {
    const opened = await chromium.pageServer(env.project);
    pages = opened;
    expect(env.project.menu("Run a pipeline…").error).toBeUndefined();
    const page = await chromium.newPage({ width: 300, height: 900 });
    await page.goto(opened.show("run", env.project.ui.sidebars.at(-1)!.getContent()));
    await page.locator('#pipeline option[value="patent-bibliography"]').waitFor({ state: "attached" });
    return page;
  }

  const planRuns = () => pages!.calls.filter((c) => c.fn === "planRun").length;

  it("equals `skillsync plan` for three pipelines, one batched with identifiers in the store, and spends nothing", async () => {
    const env = await addon.start();
    // Earlier runs put part of what will be asked into the store.
    expect((await env.runPipeline("marketplace-search", { keyword: ["usb hub"] })).status).toBe("succeeded");
    expect((await env.runPipeline("patent-bibliography", { patent: ["US1000001B2"] })).status).toBe(
      "succeeded",
    );
    const before = await ledger(env);
    const budget = (await env.api("GET", "/budget")).json;
    const page = await openSidebar(env);

    const cases: { pipeline: string; fields: Record<string, string>; params: [string, string][] }[] = [
      {
        pipeline: "marketplace-search",
        fields: { keyword: "usb hub\ndesk lamp", pages: "3" },
        params: [
          ["keyword", "usb hub"],
          ["keyword", "desk lamp"],
          ["pages", "3"],
        ],
      },
      {
        pipeline: "patent-bibliography",
        fields: { patent: "US1000001B2\nUS1000002B2\nUS1000003B2" },
        params: [
          ["patent", "US1000001B2"],
          ["patent", "US1000002B2"],
          ["patent", "US1000003B2"],
        ],
      },
      {
        pipeline: "patent-search",
        fields: { q: "lidar", pages: "2", num: "20" },
        params: [
          ["q", "lidar"],
          ["pages", "2"],
          ["num", "20"],
        ],
      },
    ];
    const shown: string[] = [];
    for (const c of cases) {
      await page.selectOption("#pipeline", c.pipeline);
      for (const [name, value] of Object.entries(c.fields)) await page.fill(`#param-${name}`, value);
      await page.fill("#cap", "50");
      const line = priceLine(await cliPlan(env, c.pipeline, c.params));
      await priceShows(page, line);
      shown.push(line);
    }
    // The figures are the store's as well as the price table's: a call and an identifier already stored.
    expect(shown).toEqual([
      "2 calls · 1 credit for the first pages, at most 5 · 1 from the store",
      "1 call · 2 credits · 1 of 3 identifiers from the store",
      "1 call · 1 credit for the first pages, at most 2 · 0 from the store",
    ]);
    expect(await page.getAttribute("#price", "class")).toBe("hint");
    expect(await warning(page)).toBe("");

    // Showing the price sent nothing to the API and spent nothing, there or in the warehouse's budget.
    expect(planRuns()).toBeGreaterThanOrEqual(3);
    expect(await ledger(env)).toEqual(before);
    expect((await env.api("GET", "/budget")).json.daily.spent).toBe(budget.daily.spent);
  }, 90_000);

  it("warns when the cap is below the at most, follows the params, hints at empty ones and shows refusals", async () => {
    const env = await addon.start();
    const page = await openSidebar(env);
    await page.selectOption("#pipeline", "marketplace-search");
    // A required param is empty: a quiet hint, nothing asked, nothing in the status line.
    await priceShows(page, "Fill in keyword to see what the run would cost.");
    expect(await page.getAttribute("#price", "class")).toBe("hint");
    expect(planRuns()).toBe(0);

    // Typing asks once the typing pauses, not at every key.
    await page.fill("#cap", "5");
    await page.locator("#param-keyword").pressSequentially("usb hub");
    await priceShows(page, "1 call · 1 credit · 0 from the store");
    expect(planRuns()).toBeLessThan("usb hub".length);
    expect(await warning(page)).toBe("");

    await page.fill("#param-pages", "10");
    await priceShows(page, "1 call · 1 credit for the first pages, at most 10 · 0 from the store");
    expect(await warning(page)).toBe(
      "Your cap of 5 credits is below the at most 10: the run may stop at the cap with pages missing.",
    );
    await page.fill("#cap", "10");
    await expect.poll(() => warning(page), { timeout: 20_000 }).toBe("");

    await page.fill("#param-keyword", "usb hub\ndesk lamp");
    await page.fill("#cap", "1");
    await priceShows(page, "2 calls · 2 credits for the first pages, at most 20 · 0 from the store");
    expect(await warning(page)).toBe(
      "Your cap of 1 credit is below the 2 the first pages need: the run will stop at the cap with calls not made.",
    );

    // The server refuses: its reason, in the price's place; the status line stays empty.
    await page.fill("#cap", "60");
    await priceShows(
      page,
      "The Skillsync server refused POST /plan: invalid run request:\n  maxCredits: 60 is above the server's ceiling of 50 credits",
    );
    expect(await page.getAttribute("#price", "class")).toBe("error");
    expect(await warning(page)).toBe("");
    expect(await page.textContent("#status")).toBe("");

    await page.selectOption("#pipeline", "patent-search");
    await priceShows(page, "Fill in q to see what the run would cost.");
    // No patents given, and the pipeline's query (patents searched, not loaded yet) finds none.
    await page.selectOption("#pipeline", "patent-bibliography");
    await priceShows(page, "No inputs: nothing to ask, 0 credits.");
    expect(env.project.spreadsheet.toasts).toEqual([]);
    expect(env.project.ui.alerts).toEqual([]);
  }, 90_000);

  it("is asked again when a run from the sidebar has finished: what it stored costs nothing next time", async () => {
    const env = await addon.start();
    const page = await openSidebar(env);
    await page.selectOption("#pipeline", "marketplace-search");
    await page.fill("#param-keyword", "usb hub");
    await page.fill("#cap", "5");
    await priceShows(page, "1 call · 1 credit · 0 from the store");
    await page.click("#run");
    await page.locator("#status.ok").waitFor({ state: "visible", timeout: 40_000 });
    await priceShows(page, "1 call · 0 credits · 1 from the store");
  }, 60_000);

  it("shows the answer to the latest params, not an older answer that arrives after it", async () => {
    const env = await addon.start();
    const page = await openSidebar(env);
    await page.selectOption("#pipeline", "marketplace-search");
    await page.fill("#cap", "5");
    // Nothing is asked before the required keyword is there, so the first answer is for 10 pages.
    await page.fill("#param-pages", "10");
    await priceShows(page, "Fill in keyword to see what the run would cost.");
    // The next planRun answer is held back in the page until the test lets it through.
    await page.evaluate(() => {
      type Handlers = { ok?: ((v: unknown) => void) | undefined; fail?: ((e: unknown) => void) | undefined };
      type Runner = Record<string, (...a: unknown[]) => unknown>;
      const w = globalThis as unknown as {
        google: { script: { run: Runner } };
        held: (() => void)[];
        holdNext: boolean;
      };
      const real = w.google.script.run;
      w.held = [];
      w.holdNext = true;
      const wrap = (h: Handlers): Runner =>
        new Proxy({} as Runner, {
          get: (_, name: string) => {
            if (name === "withSuccessHandler") return (f: Handlers["ok"]) => wrap({ ...h, ok: f });
            if (name === "withFailureHandler") return (f: Handlers["fail"]) => wrap({ ...h, fail: f });
            return (...args: unknown[]) => {
              let ok = h.ok;
              if (name === "planRun" && w.holdNext && ok) {
                w.holdNext = false;
                const later = ok;
                ok = (v) => w.held.push(() => later(v));
              }
              let r = real;
              if (ok) r = r["withSuccessHandler"]!(ok) as Runner;
              if (h.fail) r = r["withFailureHandler"]!(h.fail) as Runner;
              r[name]!(...args);
            };
          },
        });
      w.google.script.run = wrap({});
    });
    await page.fill("#param-keyword", "usb hub");
    await page.waitForFunction(() => (globalThis as unknown as { held: unknown[] }).held.length === 1, null, {
      timeout: 20_000,
    });
    await page.fill("#param-pages", "1");
    await priceShows(page, "1 call · 1 credit · 0 from the store");
    // The older answer (10 pages, above the cap) arrives last: it is not shown.
    await page.evaluate(() => {
      for (const show of (globalThis as unknown as { held: (() => void)[] }).held) show();
    });
    expect(await page.textContent("#price")).toBe("1 call · 1 credit · 0 from the store");
    expect(await warning(page)).toBe("");
  }, 60_000);
});
