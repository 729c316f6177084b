import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from "../../apps-script/harness/chromium.js";
import { afterTest } from "../../helpers/after-test.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
/** Where `screenshot` writes, for docs/console.md. */
const SHOTS = join(ROOT, "docs/console");

export interface PageOptions {
  width?: number;
  height?: number;
  /** The browser's language (navigator.language, Accept-Language): the console formats numbers and dates by it. */
  locale?: string;
  timezoneId?: string;
}

/** What one navigation cost: the server's own time (its `Server-Timing: app;dur=N`) and the first render. */
export interface Measured {
  status: number;
  /** The server's time for the page, from its Server-Timing header (NaN when it sent none). */
  serverMs: number;
  /** From the navigation's start until the client script set `data-ready="1"` on <html> (charts drawn). */
  renderMs: number;
}

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  /** The first few elements, as CSS selectors. */
  targets: string[];
}

/** The little of the page's globals these functions use (the project's types have no DOM library). */
interface InPage {
  document: { documentElement: { dataset: Record<string, string | undefined> } };
  performance: { now(): number };
  requestAnimationFrame(f: () => void): number;
  axe: { run(context: unknown, o: object): Promise<{ violations: Record<string, unknown>[] }> };
}

/** Errors the page raised or logged, and CSP refusals: a console page must have none. */
const problems = new WeakMap<Page, string[]>();

/**
 * One Chromium for a test file's console tests (skipped with a notice where /usr/bin/chromium is
 * absent, failed in CI), closed after the file. Each page lives in a browser context of its own —
 * its own cookies (so its own sign-in), language and viewport — closed after the test. Only
 * loopback is reachable: anything else is refused at once, so a page that needs a CDN fails here.
 *
 * @example const browser = useConsoleBrowser(); … const page = await browser.newPage({ width: 390, locale: "de-DE" });
 *   await signIn(page, server.consoleLink); const m = await measure(page, "/console/runs");
 */
export function useConsoleBrowser() {
  let browser: Browser | undefined;
  beforeAll(async () => {
    const state = chromiumMissing();
    if (state === "fail") throw new Error(`CI=true but ${CHROMIUM} is missing (.ci/run installs it)`);
    if (state === "run")
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    /** Whether the browser is there (the tests skip themselves when not). */
    get available(): boolean {
      return browser !== undefined;
    },
    async newPage(o: PageOptions = {}): Promise<Page> {
      if (!browser) throw new Error(`${CHROMIUM} is missing: check \`available\` first`);
      const context = await newContext(browser, o);
      afterTest(() => context.close());
      return watched(await context.newPage());
    },
  };
}

async function newContext(browser: Browser, o: PageOptions): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: o.width ?? 1280, height: o.height ?? 800 },
    locale: o.locale ?? "en-US",
    timezoneId: o.timezoneId ?? "UTC",
  });
  await context.route(
    (url) => url.hostname !== "127.0.0.1",
    (route) => route.abort("blockedbyclient"),
  );
  return context;
}

function watched(page: Page): Page {
  const list: string[] = [];
  problems.set(page, list);
  page.on("pageerror", (e) => list.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") list.push(`console: ${m.text()}`);
  });
  return page;
}

/** What went wrong in the page so far (script errors, console errors, CSP refusals), and forgets them. */
export function pageProblems(page: Page): string[] {
  return (problems.get(page) ?? []).splice(0);
}

/**
 * Signs the page in with the one-time link the server printed at start; the console then shows
 * the overview (`/`) with a session cookie. Throws, saying where it landed, when it did not.
 */
export async function signIn(page: Page, link: string): Promise<void> {
  const response = await page.goto(link);
  const at = new URL(page.url());
  const cookies = await page.context().cookies(at.origin);
  if (at.pathname !== "/" || !cookies.length || !response?.ok())
    throw new Error(
      `sign-in with the one-time link ended on ${at.pathname} (HTTP ${response?.status()}), cookies ${cookies.length}`,
    );
}

/** The origin of the page's server (`http://127.0.0.1:PORT`), from the page it shows. */
const originOf = (page: Page) => new URL(page.url()).origin;

/**
 * Opens `path` on the page's server and waits until the client script says the page is drawn.
 * The render time is read inside the page (performance.now() counts from the navigation's start),
 * on the first animation frame where `data-ready` is "1".
 */
export async function measure(page: Page, path: string): Promise<Measured> {
  const response = await page.goto(new URL(path, originOf(page)).toString(), { waitUntil: "commit" });
  if (!response) throw new Error(`no response for ${path}`);
  const ready = await page.waitForFunction(
    () => {
      const g = globalThis as unknown as InPage;
      return g.document.documentElement.dataset["ready"] === "1" ? g.performance.now() : 0;
    },
    undefined,
    { polling: "raf", timeout: 30_000 },
  );
  return {
    status: response.status(),
    serverMs: serverTime(response.headers()["server-timing"]),
    renderMs: Number(await ready.jsonValue()),
  };
}

/** `app;dur=12.3` (among other metrics) → 12.3. */
function serverTime(header: string | undefined): number {
  const app = (header ?? "").split(",").find((m) => m.trim().split(";")[0] === "app");
  const dur = app?.match(/dur=([\d.]+)/)?.[1];
  return dur === undefined ? Number.NaN : Number(dur);
}

const axeSource = () => readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * Runs axe-core on the page as it is and returns its serious and critical violations. axe's
 * source is evaluated through the DevTools protocol, which the page's CSP (no injected script
 * tags) does not govern; the page itself stays as the console serves it.
 */
export async function axe(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => "axe" in globalThis);
  if (!loaded) await page.evaluate(axeSource());
  const found = await page.evaluate(async () => {
    const g = globalThis as unknown as InPage;
    const r = await g.axe.run(g.document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({
      id: String(v["id"]),
      impact: String(v["impact"]),
      help: String(v["help"]),
      targets: (v["nodes"] as { target: unknown[] }[]).slice(0, 5).map((n) => n.target.join(" ")),
    }));
  });
  return found.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/**
 * With SKILLSYNC_CONSOLE_SCREENSHOTS=1, writes docs/console/NAME.png of the page at 1280×800 (its
 * viewport put back after); else nothing, so the tests leave no file behind.
 */
export async function screenshot(page: Page, name: string): Promise<string | undefined> {
  if (process.env["SKILLSYNC_CONSOLE_SCREENSHOTS"] !== "1") return undefined;
  const before = page.viewportSize();
  await page.setViewportSize({ width: 1280, height: 800 });
  // Two frames: the charts redraw at the new width on the first.
  await page.evaluate(() => {
    const g = globalThis as unknown as InPage;
    return new Promise((r) => g.requestAnimationFrame(() => g.requestAnimationFrame(() => r(null))));
  });
  mkdirSync(SHOTS, { recursive: true });
  const file = join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  if (before) await page.setViewportSize(before);
  return file;
}

/** The `q` quantile (0.95: p95) of the figures, by the nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}
