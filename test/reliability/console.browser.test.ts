import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type LoadedPipeline, loadPipeline } from "../../engine/define/pipeline-file.js";
import { recentWarehouseRuns } from "../../engine/publish/run-and-pipeline-views.js";
import { scheduleSchema } from "../../schema/schedule.js";
import { startServer } from "../../server/server.js";
import { runDetail } from "../../store/run-detail.js";
import { bigWarehouse } from "../console/support/big-warehouse.js";
import {
  axe,
  type Measured,
  measure,
  pageProblems,
  quantile,
  screenshot,
  signIn,
  useConsoleBrowser,
} from "../console/support/console-browser.js";
import { afterTest } from "../helpers/after-test.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, PG_URL, type WarehouseKind } from "../helpers/warehouses.js";

/**
 * Issue 48's acceptance: Debian's Chromium signs in with the one-time link, opens every console
 * page over a warehouse of 10,000 runs and 1,000,000 rows, checks what each shows against the
 * warehouse, times the server (p95 ≤ 300 ms) and the first render (p95 ≤ 1 s), and has axe-core
 * find no serious or critical violation, at 1280 and 390 px. With SKILLSYNC_CONSOLE_SCREENSHOTS=1
 * it writes docs/console/*.png. SKILLSYNC_CONSOLE_TEST_SCALE (default 1) shrinks the warehouse
 * while working on the test.
 */
const SCALE = Number(process.env["SKILLSYNC_CONSOLE_TEST_SCALE"] ?? "1");
const RUNS = Math.round(10_000 * SCALE);
const ROWS = Math.round(1_000_000 * SCALE);
const LOADS_PER_PAGE = 20;
const SERVER_P95_MS = 300;
const RENDER_P95_MS = 1000;
const SECRET = "console-browser-test-secret-0123456789abcdef";

const browser = useConsoleBrowser();

/** Built-in pipelines, four of them with a schedule (the fixture's state rows are theirs; patent-family is paused). */
function scheduledPipelines(): LoadedPipeline[] {
  const schedule = scheduleSchema.parse({ cron: "0 6 * * *" });
  const scheduled = new Set(["marketplace-search", "patent-legal-status", "patent-family", "patent-search"]);
  return [
    "marketplace-search",
    "patent-legal-status",
    "patent-family",
    "patent-search",
    "patent-bibliography",
    "ip-tro-check",
  ].map((name) => {
    const p = loadPipeline(name);
    return scheduled.has(name) ? { ...p, schedule } : p;
  });
}

async function consoleOver(kind: WarehouseKind) {
  const started = Date.now();
  const big = await bigWarehouse(freshWarehouseUrl(kind), { runs: RUNS, rows: ROWS });
  afterTest(() => big.close());
  const buildMs = Date.now() - started;
  const { client } = await emulatorWithClient();
  const server = await startServer({
    secret: SECRET,
    warehouse: big.warehouse,
    client,
    maxCredits: 50,
    port: 0,
    host: "127.0.0.1",
    pipelines: scheduledPipelines(),
    log: () => {},
  });
  afterTest(() => server.close());
  return { big, server, buildMs };
}

type Big = Awaited<ReturnType<typeof consoleOver>>["big"];

/** The pages, with a run of each kind and both keys' timelines. */
function pagesOf(big: Big, ids: { load: string; failed: string }): Record<string, string> {
  const priceKey = JSON.stringify([big.priceKey.keyword, big.priceKey.asin]);
  return {
    overview: "/",
    runs: "/console/runs",
    "runs-failed": "/console/runs?status=failed",
    "run-load": `/console/runs/${encodeURIComponent(ids.load)}`,
    "run-failed": `/console/runs/${encodeURIComponent(ids.failed)}`,
    schedules: "/console/schedules",
    changes: "/console/changes",
    "changes-status": `/console/changes/${big.statusTable}`,
    "timeline-price": `/console/changes/${big.priceTable}?key=${encodeURIComponent(priceKey)}`,
    "timeline-status": `/console/changes/${big.statusTable}?key=${encodeURIComponent(big.statusKey)}`,
    tables: "/console/tables",
    table: `/console/tables/${big.priceSource}`,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading what a page shows

/** The numbers (`<data class="num" value>`) of a chart's data table, per row: its <time> and the values. */
function chartRows(page: Page, chart: string): Promise<{ at: string; values: number[] }[]> {
  return page.$$eval(`figure[data-chart="${chart}"] table tr`, (trs) =>
    trs.flatMap((tr) => {
      const at = tr.querySelector("time")?.getAttribute("datetime");
      if (!at) return [];
      const values = [...tr.querySelectorAll("data.num")].map((d) => Number(d.getAttribute("value")));
      return [{ at, values }];
    }),
  );
}

/** A chart's SPEC (the JSON the client draws from). */
async function chartSpec(
  page: Page,
  id: string,
): Promise<{ x: number[]; series: { values: unknown[] }[]; categories?: string[] }> {
  return JSON.parse((await page.textContent(`script[type="application/json"]#${id}`)) ?? "null");
}

/** A summary card's number, by its label. */
async function card(page: Page, label: string): Promise<number> {
  const value = await page.$$eval(
    ".card",
    (cards, l) => {
      const c = cards.find((x) => x.querySelector(".label")?.textContent?.trim() === l);
      return c?.querySelector("data.num")?.getAttribute("value") ?? null;
    },
    label,
  );
  if (value === null) throw new Error(`no card "${label}" on ${page.url()}`);
  return Number(value);
}

/** The first `<data class="num">` of the paragraph that says how many there are ("12 run(s)", "1,000 rows"). */
async function countIn(page: Page, words: RegExp): Promise<number> {
  const value = await page.$$eval(
    "main p",
    (ps, source) => {
      const p = ps.find((x) => x.querySelector("data.num") && new RegExp(source).test(x.textContent ?? ""));
      return p?.querySelector("data.num")?.getAttribute("value") ?? null;
    },
    words.source,
  );
  if (value === null) throw new Error(`no count matching ${words} on ${page.url()}`);
  return Number(value);
}

const sumBy = <T>(xs: readonly T[], key: (x: T) => string, value: (x: T) => number) => {
  const out = new Map<string, number>();
  for (const x of xs) out.set(key(x), (out.get(key(x)) ?? 0) + value(x));
  return out;
};

// ---------------------------------------------------------------------------------------------
// The checks of each page against the warehouse

async function checkOverview(page: Page, big: Big): Promise<void> {
  await measure(page, "/");
  const runs = await recentWarehouseRuns(big.warehouse, RUNS + 100);
  const perDay = sumBy(
    runs,
    (r) => String(r.startedAt).slice(0, 10),
    (r) => r.credits.spent,
  );
  const rows = await chartRows(page, "credits");
  expect(rows.length).toBeGreaterThanOrEqual(28);
  for (const r of rows) expect(r.values[0]).toBeCloseTo(perDay.get(r.at.slice(0, 10)) ?? 0, 2);
  const spec = await chartSpec(page, "credits");
  expect(spec.series[0]!.values.map(Number)).toEqual(rows.map((r) => r.values[0]));
  expect(spec.x).toEqual(rows.map((r) => Date.parse(r.at) / 1000));
}

async function checkRuns(page: Page, big: Big): Promise<void> {
  const runs = await recentWarehouseRuns(big.warehouse, RUNS + 100);
  await measure(page, "/console/runs");
  expect(await countIn(page, /run\(s\)/)).toBe(RUNS);
  const filters = [
    { q: "status=failed", keep: (r: (typeof runs)[number]) => r.status === "failed" },
    {
      q: "pipeline=patent-search&trigger=schedule",
      keep: (r: (typeof runs)[number]) => r.pipeline === "patent-search" && r.trigger === "schedule",
    },
  ];
  for (const f of filters) {
    await measure(page, `/console/runs?${f.q}`);
    const matching = runs.filter(f.keep);
    expect(await countIn(page, /run\(s\)/)).toBe(matching.length);
    const shown = await page.$$eval("main table tr td:first-child a", (as) =>
      as.map((a) => a.textContent?.trim()),
    );
    expect(shown).toEqual(matching.slice(0, shown.length).map((r) => r.runId));
    expect(shown.length).toBe(Math.min(50, matching.length));
  }
}

async function checkRun(page: Page, big: Big, id: string): Promise<void> {
  await measure(page, `/console/runs/${encodeURIComponent(id)}`);
  const d = (await runDetail(big.warehouse, id))!;
  expect(await card(page, "Credits")).toBeCloseTo(Number(d.run["credits_spent"]), 2);
  expect(await card(page, "Rows")).toBe(Number(d.run["rows_written"]));
  expect(await card(page, "Rejected")).toBe(Number(d.run["rows_rejected"]));
  expect(await card(page, "Calls")).toBe(Number(d.run["calls_done"]));
  expect(await card(page, "From the store")).toBe(
    Number(d.run["calls_cached"]) + Number(d.run["calls_shared"]),
  );
  const loads = await page.$$eval('table[aria-label="Loads"] tr, [aria-label="Loads"] table tr', (trs) =>
    trs.flatMap((tr) => {
      const nums = [...tr.querySelectorAll("data.num")].map((x) => Number(x.getAttribute("value")));
      return nums.length ? [nums] : [];
    }),
  );
  expect(loads.map((l) => [l[0], l[1]])).toEqual(d.loads.map((l) => [l.id, l.rowsInserted]));
}

async function checkSchedules(page: Page): Promise<void> {
  await measure(page, "/console/schedules");
  const rows = await page.$$eval("main table tr", (trs) =>
    trs.flatMap((tr) => {
      const cells = [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "");
      return cells.length ? [{ key: cells[0]!.trim(), text: cells.join(" | ") }] : [];
    }),
  );
  const paused = rows.filter((r) => /\bpaused\b/.test(r.text)).map((r) => r.key);
  expect(paused).toEqual([expect.stringContaining("patent-family")]);
  expect(rows.length).toBe(4);
}

async function checkTimelines(page: Page, big: Big, paths: Record<string, string>): Promise<void> {
  await measure(page, paths["timeline-price"]!);
  const history = await big.warehouse.db
    .selectFrom(big.priceTable)
    .select(["price", "load_id"])
    .where("asin", "=", big.priceKey.asin)
    .where("keyword", "=", big.priceKey.keyword)
    .orderBy("load_id")
    .execute();
  const line = await chartSpec(page, "line-price");
  expect(line.series[0]!.values.map(Number)).toEqual(history.map((h) => Number(h.price)));
  expect(history).toHaveLength(big.priceKey.versions);

  await measure(page, paths["timeline-status"]!);
  const versions = await big.warehouse.db
    .selectFrom(big.statusTable)
    .select(["legal_status"])
    .where("publication_number", "=", big.statusKey)
    .orderBy("valid_from")
    .execute();
  const steps = await chartSpec(page, "steps-legal_status");
  expect(steps.series[0]!.values.map((i) => steps.categories![Number(i)])).toEqual(
    versions.map((v) => v.legal_status),
  );
}

async function checkTable(page: Page, big: Big): Promise<void> {
  await measure(page, `/console/tables/${big.priceSource}`);
  const n = await big.warehouse.db
    .selectFrom(big.priceSource)
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  expect(await countIn(page, /rows/)).toBe(Number(n.n));
}

// ---------------------------------------------------------------------------------------------
// Timing, accessibility and the narrow screen

interface Figures {
  page: string;
  serverP95: number;
  serverMax: number;
  renderP95: number;
  renderMax: number;
}

async function timePages(page: Page, paths: Record<string, string>): Promise<Figures[]> {
  const out: Figures[] = [];
  for (const [name, path] of Object.entries(paths)) {
    const m: Measured[] = [];
    for (let i = 0; i < LOADS_PER_PAGE; i++) m.push(await measure(page, path));
    expect(m.map((x) => x.status)).toEqual(m.map(() => 200));
    const server = m.map((x) => x.serverMs);
    const render = m.map((x) => x.renderMs);
    out.push({
      page: name,
      serverP95: quantile(server, 0.95),
      serverMax: Math.max(...server),
      renderP95: quantile(render, 0.95),
      renderMax: Math.max(...render),
    });
  }
  return out;
}

async function accessible(page: Page, paths: Record<string, string>, width: number): Promise<string[]> {
  const found: string[] = [];
  for (const [name, path] of Object.entries(paths)) {
    await measure(page, path);
    for (const v of await axe(page))
      found.push(`${name} at ${width}px: ${v.impact} ${v.id} (${v.help}) ${v.targets.join(", ")}`);
    // Nothing wider than the screen but the scrolling regions made for it.
    const overflow = await page.evaluate(() => {
      const g = globalThis as unknown as {
        document: { documentElement: { scrollWidth: number; clientWidth: number } };
      };
      return g.document.documentElement.scrollWidth - g.document.documentElement.clientWidth;
    });
    if (overflow > 1) found.push(`${name} at ${width}px: the page is ${overflow}px wider than the screen`);
    for (const p of pageProblems(page)) found.push(`${name} at ${width}px: ${p}`);
  }
  return found;
}

function printFigures(kind: string, buildMs: number, figures: Figures[]): void {
  const lines = figures.map(
    (f) =>
      `  ${f.page.padEnd(16)} server p95 ${f.serverP95.toFixed(1).padStart(7)} ms (max ${f.serverMax.toFixed(1)})   first render p95 ${f.renderP95.toFixed(0).padStart(5)} ms (max ${f.renderMax.toFixed(0)})`,
  );
  console.log(
    `console over ${kind}: ${RUNS} runs, ${ROWS} rows, built in ${(buildMs / 1000).toFixed(1)} s; ${LOADS_PER_PAGE} loads of each page at 1280 px\n${lines.join("\n")}`,
  );
}

describe("the console in Chromium over a big warehouse", () => {
  it(`shows ${RUNS} runs and ${ROWS} rows (SQLite) as the warehouse holds them, quickly and accessibly`, async (ctx) => {
    if (!browser.available) ctx.skip();
    const { big, server, buildMs } = await consoleOver("sqlite");
    const runs = await recentWarehouseRuns(big.warehouse, RUNS + 100);
    const load = runs.find((r) => r.pipeline === "marketplace-search" && r.rows.written > 0)!;
    const failed = runs.find((r) => r.status === "failed")!;
    const paths = pagesOf(big, { load: String(load.runId), failed: String(failed.runId) });

    const page = await browser.newPage({ width: 1280, height: 800 });
    await signIn(page, server.consoleLink);
    await checkOverview(page, big);
    await checkRuns(page, big);
    await checkRun(page, big, String(load.runId));
    await checkRun(page, big, String(failed.runId));
    await checkSchedules(page);
    await checkTimelines(page, big, paths);
    await checkTable(page, big);
    expect(pageProblems(page)).toEqual([]);

    const figures = await timePages(page, paths);
    printFigures("SQLite", buildMs, figures);
    for (const [name, path] of Object.entries(paths)) {
      await measure(page, path);
      await screenshot(page, name);
    }
    const problems = await accessible(page, paths, 1280);
    await page.setViewportSize({ width: 390, height: 844 });
    problems.push(...(await accessible(page, paths, 390)));
    expect(problems).toEqual([]);
    expect(figures.filter((f) => f.serverP95 > SERVER_P95_MS)).toEqual([]);
    expect(figures.filter((f) => f.renderP95 > RENDER_P95_MS)).toEqual([]);
  }, 900_000);

  it.skipIf(!PG_URL)(
    `answers each page within ${SERVER_P95_MS} ms (p95) over Postgres too`,
    async (ctx) => {
      if (!browser.available) ctx.skip();
      const { big, server, buildMs } = await consoleOver("postgres");
      const runs = await recentWarehouseRuns(big.warehouse, RUNS + 100);
      const load = runs.find((r) => r.pipeline === "marketplace-search" && r.rows.written > 0)!;
      const failed = runs.find((r) => r.status === "failed")!;
      const paths = pagesOf(big, { load: String(load.runId), failed: String(failed.runId) });
      const page = await browser.newPage({ width: 1280, height: 800 });
      await signIn(page, server.consoleLink);
      await checkOverview(page, big);
      const figures = await timePages(page, paths);
      printFigures("Postgres", buildMs, figures);
      expect(figures.filter((f) => f.serverP95 > SERVER_P95_MS)).toEqual([]);
    },
    900_000,
  );
});
