import type { KeyTimeline } from "../../../engine/publish/console/key-timeline.js";
import { type Html, html, jsonScript, num, time } from "../html.js";
import { chart, grid } from "../layout.js";
import { shown } from "./alert-rows.js";

/** Text columns with more distinct values than this are not a state to draw as steps (a title, a note). */
const MAX_STEPS = 20;

const epoch = (iso: string) => Math.round(Date.parse(iso) / 1000);

/** A key's versions: each number as a line over the loads, each state (a status) as steps, then its events. */
export function timelineBody(t: KeyTimeline): Html {
  const charts = [
    ...t.numeric.map((c) => lineChart(t, c)),
    ...t.text.flatMap((c) => {
      const categories = [...new Set(t.points.map((p) => shown(p.values[c])))];
      return categories.length > 1 && categories.length <= MAX_STEPS ? [stepChart(t, c, categories)] : [];
    }),
  ];
  const columns = [...t.numeric, ...t.text];
  return html`<p>${num(t.points.length)} version(s) of this key.</p>
${charts}
<h2>Versions</h2>
${grid({
  label: "Versions",
  head: ["From", "Load", ...columns],
  rows: t.points.map(
    (p) =>
      html`<tr><td>${time(p.at)}</td><td>${num(p.loadId)}</td>${columns.map((c) => html`<td>${value(p.values[c])}</td>`)}</tr>`,
  ),
})}
${
  t.events?.length
    ? html`<h2>Events</h2>${grid({
        label: "Events",
        head: ["Date", "Code", "Description"],
        rows: t.events.map(
          (e) => html`<tr><td>${time(e.at, true)}</td><td>${e.code}</td><td>${e.description ?? ""}</td></tr>`,
        ),
      })}`
    : ""
}`;
}

const value = (v: unknown) => (typeof v === "number" ? num(v) : shown(v));

function lineChart(t: KeyTimeline, column: string): Html {
  const id = `line-${column}`;
  const spec = {
    kind: "line",
    x: t.points.map((p) => epoch(p.at)),
    series: [{ label: column, values: t.points.map((p) => numberOrNull(p.values[column])) }],
    yLabel: column,
  };
  const table = grid({
    label: column,
    head: ["From", { text: column, n: true }],
    rows: t.points.map(
      (p) => html`<tr><td>${time(p.at)}</td><td class="n">${value(p.values[column])}</td></tr>`,
    ),
  });
  return html`${chart({ id, title: `${column} over loads`, label: `${column} of ${t.key} over ${t.points.length} versions`, table })}${jsonScript(id, spec)}`;
}

function stepChart(t: KeyTimeline, column: string, categories: string[]): Html {
  const id = `steps-${column}`;
  const spec = {
    kind: "steps",
    x: t.points.map((p) => epoch(p.at)),
    series: [{ label: column, values: t.points.map((p) => categories.indexOf(shown(p.values[column]))) }],
    categories,
    yLabel: column,
  };
  const table = grid({
    label: column,
    head: ["From", column],
    rows: t.points.map((p) => html`<tr><td>${time(p.at)}</td><td>${shown(p.values[column])}</td></tr>`),
  });
  return html`${chart({ id, title: `${column} over loads`, label: `${column} of ${t.key}: ${categories.join(", ")}`, table })}${jsonScript(id, spec)}`;
}

function numberOrNull(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : null;
}
