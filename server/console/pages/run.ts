import { readRunPage } from "../../../engine/publish/console/run-page.js";
import type { PageRequest } from "../context.js";
import { type Html, html, num, time } from "../html.js";
import { grid, missingPage, pageReply } from "../layout.js";
import type { ConsoleReply } from "../respond.js";
import { shown } from "./alert-rows.js";
import { badge } from "./overview.js";

type RunPage = NonNullable<Awaited<ReturnType<typeof readRunPage>>>;

const n = (v: number) => html`<td class="n">${num(v)}</td>`;

/** `/console/runs/:id`: what one run did — calls, store, credits, rows, rejects, loads, errors, events. */
export async function runPage(r: PageRequest, id: string): Promise<ConsoleReply> {
  const p = await readRunPage(r.c.route.warehouse, id.slice(0, 100));
  if (!p) {
    return missingPage(r, "runs", "No such run", `There is no run "${id.slice(0, 100)}".`);
  }
  const v = p.run;
  const body = html`<p>${badge(String(v.status))} ${String(v.trigger)} · ${v.pipeline} · started ${time(String(v.startedAt))}${v.finishedAt ? html` · finished ${time(String(v.finishedAt))}` : ""}</p>
${v.stopReason ? html`<p class="error">${String(v.stopReason)}</p>` : ""}
${v.errors.map((e) => html`<p class="error">${e.message}</p>`)}
${p.warnings.length ? html`<ul class="warnings">${p.warnings.map((w) => html`<li>${w}</li>`)}</ul>` : ""}
<section class="cards" aria-label="Totals">
<div class="card"><span class="label">Credits</span><span class="value">${num(v.credits.spent)}</span></div>
<div class="card"><span class="label">Credits saved</span><span class="value">${num(v.credits.saved)}</span></div>
<div class="card"><span class="label">Calls</span><span class="value">${num(v.calls.done)}</span></div>
<div class="card"><span class="label">From the store</span><span class="value">${num(v.calls.cached + v.calls.shared)}</span></div>
<div class="card"><span class="label">Rows</span><span class="value">${num(v.rows.written)}</span></div>
<div class="card"><span class="label">Rejected</span><span class="value">${num(v.rows.rejected)}</span></div>
</section>
<h2>Pipelines</h2>${pipelines(p)}
<h2>Loads</h2>${loads(p)}
<h2>Rejected records</h2>${rejects(p)}
<h2>Errors</h2>${errors(p)}
<h2>Events sent</h2>${events(p)}`;
  return pageReply(r, { title: `Run ${String(v.runId)}`, nav: "runs", body });
}

function pipelines(p: RunPage): Html {
  return grid({
    label: "Pipelines",
    head: [
      "Pipeline",
      ...["Calls", "Paid", "From store", "From another run", "Failed", "Credits", "Rows", "Rejects"].map(
        (text) => ({ text, n: true as const }),
      ),
    ],
    rows: p.pipelines.map(
      (d) =>
        html`<tr><td>${d.pipeline}</td>${n(d.calls)}${n(d.paid)}${n(d.fromStore)}${n(d.fromAnotherRun)}${n(d.failed)}${n(d.credits)}${n(d.rows)}${n(d.rejects)}</tr>`,
    ),
  });
}

function loads(p: RunPage): Html {
  if (!p.loads.length) return html`<p class="muted">No load.</p>`;
  return grid({
    label: "Loads",
    head: [
      "Load",
      "Pipeline",
      "Started",
      "Finished",
      ...["Rows", "New versions", "Unchanged", "Closed"].map((text) => ({ text, n: true as const })),
    ],
    rows: p.loads.map(
      (l) =>
        html`<tr><td>${num(l.id)}</td><td>${l.pipeline}</td><td>${time(l.startedAt)}</td><td>${time(l.finishedAt)}</td>${n(l.rowsInserted)}${n(l.versionsNew)}${n(l.unchanged)}${n(l.closed)}</tr>`,
    ),
  });
}

function rejects(p: RunPage): Html {
  if (!p.rejects.total) return html`<p class="muted">None.</p>`;
  return html`${grid({
    label: "Rejects by reason",
    head: ["Reason", { text: "Records", n: true }],
    rows: p.rejects.reasons.map((x) => html`<tr><td>${x.reason}</td>${n(x.count)}</tr>`),
  })}<details><summary>The first ${p.rejects.examples.length} records</summary>${grid({
    label: "Rejected records",
    head: ["Table", "Reason", "Record"],
    rows: p.rejects.examples.map(
      (x) =>
        html`<tr><td>${x.table}</td><td>${x.reason}</td><td><code>${shown(x.record).slice(0, 300)}</code></td></tr>`,
    ),
  })}</details>`;
}

function errors(p: RunPage): Html {
  if (!p.errors.length) return html`<p class="muted">None.</p>`;
  return grid({
    label: "Errors",
    head: ["Pipeline", "Code", "Message", { text: "Calls", n: true }],
    rows: p.errors.map(
      (e) =>
        html`<tr><td>${e.pipeline}</td><td><code>${e.code}</code></td><td>${e.message}</td>${n(e.count)}</tr>`,
    ),
  });
}

function events(p: RunPage): Html {
  if (!p.events.length) return html`<p class="muted">None: no webhook or address was told of this run.</p>`;
  return grid({
    label: "Events sent",
    head: ["Event", "Kind", "State", { text: "Tries", n: true }, "Made", "Delivered", "Last error"],
    rows: p.events.map(
      (e) =>
        html`<tr><td><code>${e.eventId}</code></td><td>${e.kind}</td><td>${badge(e.state)}</td>${n(e.attempts)}<td>${time(e.createdAt)}</td><td>${time(e.deliveredAt)}</td><td>${e.error ?? ""}</td></tr>`,
    ),
  });
}
