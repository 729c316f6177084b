import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { historyTables, readChangeFeed } from "../../../engine/publish/console/change-feed.js";
import { readKeyTimeline } from "../../../engine/publish/console/key-timeline.js";
import { latestAlerts } from "../../../engine/publish/console/overview.js";
import { type HistorySource, historySource } from "../../../engine/publish/history-source.js";
import { readerWarehouse } from "../../../store/reader-db.js";
import type { PageRequest } from "../context.js";
import { type Html, html, num, query, time } from "../html.js";
import { grid, missingPage, pageReply } from "../layout.js";
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
              html`<tr><td><a href="${link(t.table)}">${t.table}</a></td><td>${t.keyColumns.join(", ")}</td><td class="n">${t.changes === null ? html`<span class="muted" title="a view: worked out over all its rows at every read">a view</span>` : num(t.changes)}</td><td>${time(t.lastChangeAt)}</td></tr>`,
          ),
        })
      : html`<p class="muted">No table keeps history: a pipeline with <code>mode: history</code> makes one (docs/history.md).</p>`
  }</section>
<section><h2>Latest alerts</h2>${alertRows(alerts)}</section>`;
  return pageReply(r, { title: "Changes and alerts", nav: "changes", body });
}

/** The key a request names: `key` (as links write it), or one field per key column (the form). */
function keyOf(q: URLSearchParams, columns: readonly string[]): string | undefined {
  const key = q.get("key");
  if (key !== null) return key.slice(0, 1000);
  const values = columns.map((c) => q.get(`k.${c}`)?.trim().slice(0, 500) ?? "");
  if (!columns.length || values.some((v) => v === "")) return undefined;
  return columns.length === 1 ? values[0] : JSON.stringify(values);
}

function keyForm(table: string, columns: readonly string[]): Html {
  return html`<form class="filters" method="get" action="${link(table)}">
${columns.map((c) => html`<label>${c} <input name="k.${c}" required></label>`)}
<button class="act">Show its timeline</button></form>`;
}

/** `/console/changes/:table`: its changes, newest first; with a key, that key's timeline. */
export async function historyPage(r: PageRequest, table: string): Promise<ConsoleReply> {
  const w = r.c.route.warehouse;
  const known = await historySource(w, table);
  const page = (title: string, body: Html) => pageReply(r, { title, nav: "changes", body });
  if (!known)
    return missingPage(
      r,
      "changes",
      "No such history table",
      `"${table}" is not a table that keeps history.`,
    );
  const key = keyOf(r.url.searchParams, known.keyColumns);
  if (key !== undefined) {
    const timeline = await readKeyTimeline(w, table, key, { known });
    if (!timeline)
      return missingPage(
        r,
        "changes",
        `${table}: no such key`,
        `${table} has no row with the key ${key.slice(0, 200)}.`,
      );
    return page(`${table}: ${timeline.key}`, timelineBody(timeline));
  }
  if (known.kind === "view") {
    // A change view's rows are worked out over its whole source at every read: one key at a time.
    const body = html`${keyForm(table, known.keyColumns)}
<p class="muted">${table} is a view that pairs each load's values with the load before, worked out over all
its rows at every read, so its changes are shown one key at a time. Watches on it alert as loads
move it (<a href="/console/changes">latest alerts</a>); <code>skillsync sql</code> reads all of it.</p>`;
    return page(`Changes: ${table}`, body);
  }
  return page(`Changes: ${table}`, await feedBody(w, known, r.url.searchParams));
}

async function feedBody(w: Warehouse, known: HistorySource, q: URLSearchParams): Promise<Html> {
  const { table, keyColumns } = known;
  const before = q.get("before")?.slice(0, 200) || undefined;
  const feed = await readChangeFeed(w, table, { limit: FEED, ...(before ? { before } : {}) }, known);
  return html`${keyForm(table, keyColumns)}
${grid({
  label: `${table}: changes`,
  head: ["When", "Load", keyColumns.join(", ") || "Key", "Column", "From", "To"],
  rows: feed.changes.map(
    (
      c,
    ) => html`<tr><td>${time(c.at)}</td><td>${num(c.loadId)}</td><td><a href="${link(table)}${query({ key: c.key })}">${c.key}</a></td>
<td>${c.column ?? "–"}</td><td>${shown(c.from)}</td><td>${shown(c.to)}</td></tr>`,
  ),
})}${feed.next ? html`<p><a href="${link(table)}${query({ before: feed.next })}">Older changes</a></p>` : ""}`;
}
