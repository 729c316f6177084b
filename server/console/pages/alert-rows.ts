import type { Overview } from "../../../engine/publish/console/overview.js";
import { type Html, html, query, time } from "../html.js";
import { grid } from "../layout.js";

type AlertRow = Overview["latestAlerts"][number];

const shown = (v: unknown) =>
  v === null || v === undefined ? "–" : typeof v === "string" ? v : JSON.stringify(v);

/** Alerts as a table: when, which watch, which key (linked to its timeline), what moved. */
export function alertRows(alerts: readonly AlertRow[]): Html {
  if (!alerts.length)
    return html`<p class="muted">No alert yet. <code>skillsync watch add</code> says what to watch (docs/alerts.md).</p>`;
  return grid({
    label: "Alerts",
    head: ["When", "Watch", "Table", "Key", "Column", "From", "To"],
    rows: alerts.map(
      (
        a,
      ) => html`<tr><td>${time(a.at)}</td><td>${a.watch}</td><td><a href="/console/changes/${encodeURIComponent(a.table)}">${a.table}</a></td>
<td><a href="/console/changes/${encodeURIComponent(a.table)}${query({ key: a.key })}">${a.key}</a></td><td>${a.column ?? "–"}</td><td>${shown(a.from)}</td><td>${shown(a.to)}</td></tr>`,
    ),
  });
}

export { shown };
