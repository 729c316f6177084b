import { historySource, historyTables, readChangeFeed } from "../../../engine/publish/console/change-feed.js";
import { readKeyTimeline } from "../../../engine/publish/console/key-timeline.js";
import { latestAlerts } from "../../../engine/publish/console/overview.js";
import { readerWarehouse } from "../../../store/reader-db.js";
import type { PageRequest } from "../context.js";
import { html, num, query, time } from "../html.js";
import { grid, layout, notice } from "../layout.js";
import type { ConsoleReply } from "../respond.js";
import { alertRows, shown } from "./alert-rows.js";
import { timelineBody } from "./timeline.js";

const FEED = 100;

const link = (t: string) => `/console/changes/${encodeURIComponent(t)}`;

/** `/console/changes`: the tables that keep history, what changed lately, and the latest alerts. */
export async function changesPage(r: PageRequest): Promise<ConsoleReply> {
  const w = r.c.route.warehouse;
  const [tables, alerts] = await Promise.all([
    historyTables(w),
    latestAlerts(readerWarehouse(w, "console alerts"), 50),
  ]);
  const body = html`<section><h2>Tables that keep history</h2>${
    tables.length
      ? grid({
          label: "Tables that keep history",
          head: ["Table", "Key", { text: "Keys changed in the last 10 loads", n: true }, "Last change"],
          rows: tables.map(
            (t) =>
              html`<tr><td><a href="${link(t.table)}">${t.table}</a></td><td>${t.keyColumns.join(", ")}</td><td class="n">${num(t.changes)}</td><td>${time(t.lastChangeAt)}</td></tr>`,
          ),
        })
      : html`<p class="muted">No table keeps history: a pipeline with <code>mode: history</code> makes one (docs/history.md).</p>`
  }</section>
<section><h2>Latest alerts</h2>${alertRows(alerts)}</section>`;
  return {
    status: 200,
    page: layout({ title: "Changes and alerts", nav: "changes", body, csrf: r.session.csrf }),
  };
}

/** `/console/changes/:table`: its changes, newest first; with `?key=K`, that key's timeline. */
export async function historyPage(r: PageRequest, table: string): Promise<ConsoleReply> {
  const w = r.c.route.warehouse;
  const known = await historySource(w, table);
  const page = (status: number, title: string, body: ReturnType<typeof html>) => ({
    status,
    page: layout({ title, nav: "changes", body, csrf: r.session.csrf }),
  });
  if (!known)
    return page(404, "No such history table", notice(`"${table}" is not a table that keeps history.`));
  const key = r.url.searchParams.get("key");
  if (key !== null) {
    const timeline = await readKeyTimeline(w, table, key.slice(0, 1000));
    if (!timeline)
      return page(
        404,
        `${table}: no such key`,
        notice(`${table} has no row with the key "${key.slice(0, 200)}".`),
      );
    return page(200, `${table}: ${timeline.key}`, timelineBody(timeline));
  }
  const before = r.url.searchParams.get("before")?.slice(0, 200) || undefined;
  const feed = await readChangeFeed(w, table, { limit: FEED, ...(before ? { before } : {}) });
  const body = html`<form class="filters" method="get" action="${link(table)}"><label>Key <input name="key" required></label><button class="act">Show its timeline</button></form>
${grid({
  label: `${table}: changes`,
  head: ["When", "Load", known.keyColumns.join(", ") || "Key", "Column", "From", "To"],
  rows: feed.changes.map(
    (
      c,
    ) => html`<tr><td>${time(c.at)}</td><td>${num(c.loadId)}</td><td><a href="${link(table)}${query({ key: c.key })}">${c.key}</a></td>
<td>${c.column ?? "–"}</td><td>${shown(c.from)}</td><td>${shown(c.to)}</td></tr>`,
  ),
})}${feed.next ? html`<p><a href="${link(table)}${query({ before: feed.next })}">Older changes</a></p>` : ""}`;
  return page(200, `Changes: ${table}`, body);
}
