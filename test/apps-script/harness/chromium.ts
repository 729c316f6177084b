import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { afterTest } from "../../helpers/after-test.js";
import { type PageServer, startPageServer } from "./page-server.js";
import type { GasProject } from "./project.js";

/** Debian's chromium package; the test never downloads a browser (.ci/run installs this one). */
export const CHROMIUM = "/usr/bin/chromium";

/** Headless, sandbox off (root in CI), and nothing the browser would fetch on its own. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Whether the browser tests run here: skipped, with a notice, where chromium is absent; in CI
 * (CI=true) its absence is a failure instead, so a green CI always means the pages were opened.
 */
export function chromiumMissing(): "run" | "skip" | "fail" {
  if (existsSync(CHROMIUM)) return "run";
  if (process.env["CI"] === "true") return "fail";
  console.warn(
    `${CHROMIUM} is missing: the browser tests (add-on, console) are SKIPPED (apt-get install chromium to run them)`,
  );
  return "skip";
}

/**
 * A headless Chromium with a fresh profile. Only loopback is reachable: everything else (Google's
 * add-on stylesheet, say) is answered as failed at once, so nothing leaves the machine.
 */
async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "skillsync-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  await context.route(
    (url) => url.hostname !== "127.0.0.1",
    (route) => route.abort("blockedbyclient"),
  );
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * One Chromium for a test file's browser tests (in CI a missing one fails them), closed after the
 * file; page servers for a test's project and tabs of the browser, closed after the test.
 *
 * @example const chromium = useChromium(); … const pages = await chromium.pageServer(env.project);
 *   const page = await chromium.newPage({ width: 300, height: 900 }); await page.goto(pages.show("run", html));
 */
export function useChromium() {
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  beforeAll(async () => {
    if (chromiumMissing() === "fail")
      throw new Error(`CI=true but ${CHROMIUM} is missing (.ci/run installs it)`);
    browser = await launchChromium();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async pageServer(project: GasProject): Promise<PageServer> {
      const server = await startPageServer(project);
      afterTest(() => server.close());
      return server;
    },
    async newPage(viewport?: { width: number; height: number }): Promise<Page> {
      const page = await browser!.context.newPage();
      afterTest(() => page.close());
      if (viewport) await page.setViewportSize(viewport);
      return page;
    },
  };
}
