import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { afterTest } from "../helpers/after-test.js";
import {
  axe,
  measure,
  pageProblems,
  quantile,
  screenshot,
  signIn,
  useConsoleBrowser,
} from "./support/console-browser.js";

/**
 * A stand-in for the console, to test the harness alone: strict CSP, a one-time link that sets a
 * cookie and sends the browser to `/`, Server-Timing on every page, and a script that marks the
 * page drawn (`data-ready`) once it has written the browser's language into it.
 */
const SCRIPT = `document.getElementById("lang").textContent = navigator.language;
requestAnimationFrame(() => { document.documentElement.dataset.ready = "1"; });`;

function page(body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console</title>
<script type="module" src="/app.js"></script></head><body><main><h1>Overview</h1>${body}</main></body></html>`;
}

async function standIn(): Promise<string> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const headers = {
      "content-security-policy": "default-src 'self'; script-src 'self'",
      "server-timing": "db;dur=1, app;dur=12.5",
    };
    if (url.pathname === "/console/signin" && url.searchParams.get("token") === "one-time") {
      res.writeHead(303, { location: "/", "set-cookie": "session=s1; HttpOnly; Path=/; SameSite=Strict" });
      return res.end();
    }
    if (url.pathname === "/console/signin") {
      res.writeHead(403, { "content-type": "text/html; charset=utf-8", ...headers });
      return res.end(page("<p>This link is used or expired.</p>"));
    }
    if (url.pathname === "/app.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      return res.end(SCRIPT);
    }
    if (!req.headers.cookie?.includes("session=s1")) {
      res.writeHead(303, { location: "/console/signin" });
      return res.end();
    }
    const body = url.pathname === "/bad" ? `<img src="/x.png"><p id="lang"></p>` : `<p id="lang"></p>`;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", ...headers });
    res.end(page(body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  afterTest(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the console's browser harness", () => {
  const browser = useConsoleBrowser();

  it("signs in with the link, measures a page, runs axe, and writes no screenshot unasked", async (ctx) => {
    if (!browser.available) ctx.skip();
    const base = await standIn();
    const page = await browser.newPage({ width: 390, height: 800, locale: "de-DE" });
    await expect(signIn(page, `${base}/console/signin?token=wrong`)).rejects.toThrow(
      /ended on \/console\/signin/,
    );
    // The refused link's page (403) is reported among the page's problems, then forgotten.
    expect(pageProblems(page).join("\n")).toMatch(/403/);
    await signIn(page, `${base}/console/signin?token=one-time`);

    const m = await measure(page, "/");
    expect(m).toMatchObject({ status: 200, serverMs: 12.5 });
    expect(m.renderMs).toBeGreaterThan(0);
    expect(m.renderMs).toBeLessThan(10_000);
    expect(await page.textContent("#lang")).toBe("de-DE");
    expect(await axe(page)).toEqual([]);

    await measure(page, "/bad");
    const violations = await axe(page);
    expect(violations.map((v) => v.id)).toContain("image-alt");
    expect(pageProblems(page)).toEqual([]);

    const env = process.env["SKILLSYNC_CONSOLE_SCREENSHOTS"];
    delete process.env["SKILLSYNC_CONSOLE_SCREENSHOTS"];
    try {
      expect(await screenshot(page, "never")).toBeUndefined();
    } finally {
      if (env !== undefined) process.env["SKILLSYNC_CONSOLE_SCREENSHOTS"] = env;
    }
    expect(quantile([5, 1, 4, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 0.95)).toBe(19);
  }, 60_000);
});
