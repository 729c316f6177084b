import { type RunFilter, readRunList, runPipelineNames } from "../../../engine/publish/console/run-list.js";
import type { PageRequest } from "../context.js";
import { type Html, html, num, query, time } from "../html.js";
import { grid, pageReply } from "../layout.js";
import type { ConsoleReply } from "../respond.js";
import { badge } from "./overview.js";

const PAGE = 50;
const STATUSES = ["succeeded", "warnings", "failed", "ceiling", "interrupted", "running"];
const TRIGGERS = ["manual", "schedule", "server", "mcp"];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The list's filters from the query string; a value that is not one of the choices is ignored. */
function filterOf(q: URLSearchParams, pipelines: string[]): RunFilter {
  const pick = (name: string, allowed: string[]) => {
    const v = q.get(name) ?? "";
    return allowed.includes(v) ? v : undefined;
  };
  const day = (name: string) => {
    const v = q.get(name) ?? "";
    return DAY.test(v) ? v : undefined;
  };
  const before = (q.get("before") ?? "").slice(0, 200) || undefined;
  return {
    status: pick("status", STATUSES),
    pipeline: pick("pipeline", pipelines),
    trigger: pick("trigger", TRIGGERS),
    from: day("from"),
    to: day("to"),
    before,
    limit: PAGE,
  } as RunFilter;
}

/** `/console/runs`: every run, newest first, filtered by outcome, pipeline, trigger and days. */
export async function runsPage(r: PageRequest): Promise<ConsoleReply> {
  const w = r.c.route.warehouse;
  const pipelines = await runPipelineNames(w);
  const f = filterOf(r.url.searchParams, pipelines);
  const list = await readRunList(w, f);
  const more = list.next
    ? html`<p><a href="/console/runs${query({ ...f, limit: undefined, before: list.next })}">Older runs</a></p>`
    : "";
  const body = html`${filters(f, pipelines)}
<p>${num(list.total)} run(s)${f.status || f.pipeline || f.trigger || f.from || f.to ? " match" : ""}.</p>
${grid({
  label: "Runs",
  head: [
    "Run",
    "Pipeline",
    "Trigger",
    "Outcome",
    "Started",
    { text: "Calls", n: true },
    { text: "From store", n: true },
    { text: "Credits", n: true },
    { text: "Rows", n: true },
    { text: "Rejected", n: true },
  ],
  rows: list.runs.map(
    (
      v,
    ) => html`<tr><td><a href="/console/runs/${encodeURIComponent(String(v.runId))}">${String(v.runId)}</a></td><td>${v.pipeline}</td><td>${String(v.trigger)}</td>
<td>${badge(String(v.status))}</td><td>${time(String(v.startedAt))}</td><td class="n">${num(v.calls.done)}</td><td class="n">${num(v.calls.cached + v.calls.shared)}</td>
<td class="n">${num(v.credits.spent)}</td><td class="n">${num(v.rows.written)}</td><td class="n">${num(v.rows.rejected)}</td></tr>`,
  ),
})}${more}`;
  return pageReply(r, { title: "Runs", nav: "runs", body });
}

function select(name: string, label: string, choices: string[], value: string | undefined): Html {
  return html`<label>${label} <select name="${name}"><option value="">any</option>${choices.map(
    (c) => html`<option${c === value ? html` selected` : ""}>${c}</option>`,
  )}</select></label>`;
}

function filters(f: RunFilter, pipelines: string[]): Html {
  return html`<form class="filters" method="get" action="/console/runs">
${select("status", "Outcome", STATUSES, f.status)}
${select("pipeline", "Pipeline", pipelines, f.pipeline)}
${select("trigger", "Trigger", TRIGGERS, f.trigger)}
<label>From <input type="date" name="from" value="${f.from ?? ""}"></label>
<label>To <input type="date" name="to" value="${f.to ?? ""}"></label>
<button class="act">Filter</button>
</form>`;
}
