import axe from "axe-core";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from "../apps-script/harness/chromium.js";
import { afterTest } from "../helpers/after-test.js";
import { contractPage, figure, LINE, STEPS, serveConsolePages, specScript } from "./console-page.js";
import {
  AXE_CONTRAST,
  colouredPixels,
  FIRST_CANVAS_WIDTH,
  OVERFLOW,
  RECORD_VIOLATIONS,
  VIOLATIONS,
} from "./page-checks.js";

const mode = chromiumMissing();

let browser: Browser | undefined;

beforeAll(async () => {
  if (mode === "fail") throw new Error(`CI=true but ${CHROMIUM} is missing (.ci/run installs it)`);
  if (mode === "skip") return;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}, 30_000);

afterAll(async () => {
  await browser?.close();
});

interface Watched {
  page: Page;
  errors: string[];
  violations: () => Promise<string[]>;
}

/** A German-speaking reader's tab at a width, with every console error and CSP violation recorded. */
async function openTab(width: number): Promise<Watched> {
  const context = await browser!.newContext({ locale: "de-DE", viewport: { width, height: 900 } });
  afterTest(() => context.close());
  // Only loopback: nothing the page asks for may leave the machine.
  await context.route(
    (url) => url.hostname !== "127.0.0.1",
    (route) => route.abort("blockedbyclient"),
  );
  // Added by the browser's own protocol, not by the page, so the CSP under test does not block it.
  await context.addInitScript(RECORD_VIOLATIONS);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  const violations = () => page.evaluate<string[]>(VIOLATIONS);
  return { page, errors, violations };
}

async function load(tab: Watched, url: string): Promise<void> {
  await tab.page.goto(url);
  // A locator, not waitForFunction: Playwright polls a string predicate with eval, which the CSP refuses.
  await tab.page.locator('html[data-ready="1"]').waitFor({ state: "attached", timeout: 20_000 });
}

const pixels = (page: Page, id: string) => page.evaluate<number>(colouredPixels(id));

const text = (page: Page, selector: string) => page.locator(selector).textContent();

describe.skipIf(mode === "skip")("the console's script in Chromium", () => {
  it("draws a bars, a line and a steps chart, formats for the locale, under the CSP, with no error", async () => {
    const url = await serveConsolePages({ "/": contractPage() });
    const tab = await openTab(1280);
    await load(tab, `${url}/`);
    for (const id of ["credits-per-day", "price", "status"])
      expect(await pixels(tab.page, id), id).toBeGreaterThan(100);
    expect(await text(tab.page, "#credits")).toBe("1.234,5");
    expect(await text(tab.page, "#share")).toMatch(/^12,35\s?%$/);
    expect(await text(tab.page, "#moment")).toMatch(/29\.11\.2026|29\. Nov\. 2026/);
    expect(await text(tab.page, "#day")).toBe("29.11.2026");
    // Category names label the steps chart's y axis; the legend names the limit.
    expect(await tab.page.locator('figure[data-chart="credits-per-day"] .u-legend').textContent()).toContain(
      "Daily budget",
    );
    expect(await tab.violations()).toEqual([]);
    expect(tab.errors).toEqual([]);
  });

  it("fits a 390 px wide phone: nothing overflows sideways except inside .scroll, and charts follow a resize", async () => {
    const url = await serveConsolePages({ "/": contractPage() });
    const tab = await openTab(390);
    await load(tab, `${url}/`);
    const overflowing = await tab.page.evaluate(OVERFLOW);
    expect(overflowing).toEqual({ out: [], page: 0 });
    const canvasWidth = () => tab.page.evaluate<number>(FIRST_CANVAS_WIDTH);
    expect(await canvasWidth()).toBeLessThanOrEqual(390);
    await tab.page.setViewportSize({ width: 1000, height: 900 });
    await expect.poll(canvasWidth, { timeout: 10_000 }).toBeGreaterThan(600);
    expect(tab.errors).toEqual([]);
  });

  it("passes axe-core's colour-contrast check at both widths", async () => {
    const url = await serveConsolePages({ "/": contractPage() });
    for (const width of [1280, 390]) {
      const tab = await openTab(width);
      await load(tab, `${url}/`);
      // Evaluated through the browser's protocol, which the page's CSP does not govern.
      await tab.page.evaluate(axe.source);
      const found = await tab.page.evaluate<string[]>(AXE_CONTRAST);
      expect(found, `width ${width}`).toEqual([]);
    }
  });

  it("leaves a broken chart's data table open and says so once, naming the chart; the others are drawn", async () => {
    const specs =
      '<script type="application/json" id="credits-per-day">{"kind": "bars", "x": [1, </script>' +
      specScript("price", { ...LINE, series: [{ label: "Price", values: [1, 2] }] }) +
      specScript("status", STEPS);
    const url = await serveConsolePages({
      "/": contractPage({ specs, extraBody: figure("orphan", "No spec anywhere") }),
    });
    const tab = await openTab(1280);
    await load(tab, `${url}/`);
    expect(await pixels(tab.page, "status")).toBeGreaterThan(100);
    for (const id of ["credits-per-day", "price", "orphan"]) {
      expect(await tab.page.locator(`figure[data-chart="${id}"] details`).getAttribute("open"), id).toBe("");
      expect(await tab.page.locator(`figure[data-chart="${id}"] canvas`).count(), id).toBe(0);
    }
    expect(tab.errors).toHaveLength(3);
    for (const id of ["credits-per-day", "price", "orphan"])
      expect(
        tab.errors.filter((e) => e.includes(`"${id}"`)),
        id,
      ).toHaveLength(1);
    expect(await tab.violations()).toEqual([]);
  });

  it("draws the edge cases without an error: no points, one point, negative and all-empty bars", async () => {
    const day = Date.UTC(2026, 10, 29) / 1000;
    const charts = {
      empty: { kind: "line", x: [], series: [{ label: "Price", values: [] }] },
      single: {
        kind: "line",
        x: [day + 3600],
        series: [{ label: "Price", values: [7] }],
        limits: [{ label: "Cap", value: 9 }],
      },
      negative: {
        kind: "bars",
        x: [day - 86_400, day],
        series: [
          { label: "Net", values: [-5, 3], stack: "s" },
          { label: "Other", values: [null, null], stack: "s" },
        ],
      },
      nulls: { kind: "bars", x: [day], series: [{ label: "None", values: [null] }] },
    };
    const specs = Object.entries(charts)
      .map(([id, spec]) => specScript(id, spec))
      .join("");
    const figures = Object.keys(charts)
      .map((id) => figure(id, id))
      .join("");
    const url = await serveConsolePages({
      "/": contractPage({ specs: specs + specScript("credits-per-day", STEPS), extraBody: figures }),
    });
    const tab = await openTab(390);
    await load(tab, `${url}/`);
    for (const id of ["single", "negative"]) expect(await pixels(tab.page, id), id).toBeGreaterThan(20);
    for (const id of Object.keys(charts))
      expect(await tab.page.locator(`figure[data-chart="${id}"] canvas`).count(), id).toBe(1);
    // The page's own "price" and "status" figures have no spec here: two errors, each naming its chart.
    expect(tab.errors.map((e) => e.match(/"([^"]+)"/)?.[1]).sort()).toEqual(["price", "status"]);
  });

  it("would see a CSP violation (the check above is not blind)", async () => {
    const url = await serveConsolePages({
      "/": contractPage({ extraBody: '<p style="color: red">inline</p>' }),
    });
    const tab = await openTab(1280);
    await load(tab, `${url}/`);
    expect((await tab.violations()).join()).toContain("style-src");
    expect(tab.errors.join()).toContain("Content Security Policy");
  });
});
