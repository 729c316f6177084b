import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterTest } from "../helpers/after-test.js";

/** The console's CSP, as the server sends it with every page. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const DIST = fileURLToPath(new URL("../../dist/web/", import.meta.url));

/** 2026-11-20 … 2026-11-29, midnight UTC: ten days of bars. */
const DAYS = Array.from({ length: 10 }, (_, i) => Date.UTC(2026, 10, 20 + i) / 1000);

/** A chart's spec as the server embeds it: JSON in a script the browser never runs, `<` escaped. */
export function specScript(id: string, spec: unknown): string {
  const json = JSON.stringify(spec).replaceAll("<", "\\u003c");
  return `<script type="application/json" id="${id}">${json}</script>`;
}

export function figure(id: string, title: string, table = "<table><tr><td>1</td></tr></table>"): string {
  return `<figure class="chart" data-chart="${id}"><figcaption>${title}</figcaption>
<div class="plot" role="img" aria-label="${title}"></div>
<details><summary>Data</summary>${table}</details></figure>`;
}

const BARS = {
  kind: "bars",
  x: DAYS,
  series: [
    { label: "Paid", values: DAYS.map((_, i) => 100 + i * 13.5), stack: "credits" },
    { label: "Cached", values: DAYS.map((_, i) => (i % 3 === 0 ? null : 40 + i)), stack: "credits" },
    { label: "Refunded", values: DAYS.map((_, i) => 5 + (i % 4)) },
  ],
  limits: [{ label: "Daily budget", value: 250 }],
  yLabel: "credits",
};

export const LINE = {
  kind: "line",
  x: DAYS.map((t, i) => t + 6 * 3600 + i * 60),
  series: [{ label: "Price", values: [19.99, 21.5, 21.5, null, 18.25, 18.25, 22, 23.1, 22.9, 24] }],
  yLabel: "EUR",
};

export const STEPS = {
  kind: "steps",
  x: DAYS.slice(0, 6),
  series: [{ label: "Legal status", values: [0, 0, 1, 1, 2, 1] }],
  categories: ["pending", "granted", "lapsed"],
};

/** A page made to the markup contract (docs: console-overview), with the three kinds of chart. */
export function contractPage(o: { specs?: string; extraBody?: string } = {}): string {
  const wide = Array.from({ length: 14 }, (_, i) => `<th scope="col">Column number ${i}</th>`).join("");
  const cells = Array.from(
    { length: 14 },
    (_, i) => `<td class="n"><data class="num" value="${i * 1000.5}">${i}</data></td>`,
  ).join("");
  return `<!doctype html><html lang="de"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Console</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script type="module" src="/console/assets/console.js"></script>
</head><body>
<nav class="top"><a href="/" aria-current="page">Overview</a><a href="/console/runs">Runs</a><a href="/console/schedules">Schedules</a><a href="/console/changes">Changes</a><a href="/console/tables">Tables</a><a href="/console/signout">Sign out</a></nav>
<main><h1>Overview of a warehouse with a rather long name</h1>
<section class="cards">
<div class="card"><span class="label">Credits today</span><data class="num" id="credits" value="1234.5">1234.5</data></div>
<div class="card"><span class="label">Share cached</span><data class="num" id="share" value="12.345" data-unit="%">12.345</data></div>
<div class="card"><span class="label">Last run</span><time id="moment" datetime="2026-11-29T06:00:00.000Z">2026-11-29 06:00 UTC</time></div>
<div class="card"><span class="label">Day</span><time id="day" data-day datetime="2026-11-29T00:00:00.000Z">2026-11-29</time></div>
</section>
<form class="filters" method="get" action="/console/runs"><label>Pipeline <input name="pipeline"></label>
<label>Outcome <select name="outcome"><option>any</option></select></label><button class="act">Filter</button></form>
<p class="muted">Runs of the last 60 days. <span class="badge succeeded">succeeded</span> <span class="badge warnings">warnings</span>
<span class="badge failed">failed</span> <span class="badge ceiling">ceiling</span> <span class="badge interrupted">interrupted</span>
<span class="badge running">running</span> <span class="badge paused">paused</span></p>
<p class="error">A sample error message.</p>
${figure("credits-per-day", "Credits per day")}
${figure("price", "Price over loads")}
${figure("status", "Legal status")}
<div class="scroll" tabindex="0" role="region" aria-label="Runs"><table class="grid"><thead><tr>${wide}</tr></thead>
<tbody><tr>${cells}</tr><tr>${cells}</tr></tbody></table></div>
${o.extraBody ?? ""}
</main>
${o.specs ?? specScript("credits-per-day", BARS) + specScript("price", LINE) + specScript("status", STEPS)}
</body></html>`;
}

/**
 * Serves pages (path → HTML) and the built assets (dist/web/) over loopback with the console's
 * CSP on every answer, as the server does; closed after the test.
 */
export async function serveConsolePages(pages: Record<string, string>): Promise<string> {
  const assets: Record<string, [string, string]> = {
    "/console/assets/console.js": ["console.js", "text/javascript; charset=utf-8"],
    "/console/assets/console.css": ["console.css", "text/css; charset=utf-8"],
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const asset = assets[path];
    const page = pages[path];
    res.setHeader("Content-Security-Policy", CSP);
    if (asset) {
      res.writeHead(200, { "Content-Type": asset[1] }).end(readFileSync(DIST + asset[0]));
    } else if (page !== undefined) {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(page);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterTest(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
