import { type DayFigures, readOverview } from "../../../engine/publish/console/overview.js";
import { readScheduleViews } from "../../../engine/publish/console/schedule-views.js";
import type { PageRequest } from "../context.js";
import { type Html, html, jsonScript, num, time } from "../html.js";
import { chart, grid, pageReply } from "../layout.js";
import type { ConsoleReply } from "../respond.js";
import { alertRows } from "./alert-rows.js";

/** The days the overview's charts cover. */
const DAYS = 30;
const OUTCOMES = ["succeeded", "warnings", "failed", "ceiling", "interrupted", "running"] as const;

const epoch = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

/** `/`: credits per day against the budget, what the store saved, runs by outcome, schedules due, alerts. */
export async function overviewPage(r: PageRequest): Promise<ConsoleReply> {
  const w = r.c.route.warehouse;
  const o = await readOverview(w, { days: DAYS, prices: r.c.route.prices });
  const due = (await readScheduleViews(w, [...r.c.route.pipelines.values()]))
    .filter((s) => !s.paused)
    .slice(0, 5);
  const total = (f: (d: DayFigures) => number) => o.days.reduce((s, d) => s + f(d), 0);
  const body = html`<section class="cards" aria-label="The last ${DAYS} days">
${card("Credits spent", num(total((d) => d.credits)))}
${card("Credits saved", num(total((d) => d.savedCredits)))}
${card("Calls from the store", num(total((d) => d.callsFromStore)))}
${card("Runs", num(total((d) => Object.values(d.runs).reduce((a, b) => a + b, 0))))}
${card("Spent today", html`${num(o.budget.spentToday)}${o.budget.dailyLimit === null ? "" : html` of ${num(o.budget.dailyLimit)}`}`)}
${card("Spent this month", html`${num(o.budget.spentThisMonth)}${o.budget.monthlyLimit === null ? "" : html` of ${num(o.budget.monthlyLimit)}`}`)}
</section>
${creditsChart(o.days, o.budget.dailyLimit)}
${runsChart(o.days)}
<section><h2>Schedules due next</h2>${
    due.length
      ? grid({
          label: "Schedules due next",
          head: ["Schedule", "Next run", "Last outcome"],
          rows: due.map(
            (s) =>
              html`<tr><td><a href="/console/schedules">${s.key}</a></td><td>${time(s.nextRunAt)}</td><td>${badge(s.last.status)}</td></tr>`,
          ),
        })
      : html`<p class="muted">No schedule is due: none is defined, or all are paused.</p>`
  }</section>
<section><h2>Latest alerts</h2>${alertRows(o.latestAlerts)}</section>`;
  return pageReply(r, { title: "Overview", nav: "overview", body });
}

const card = (label: string, value: Html) =>
  html`<div class="card"><span class="label">${label}</span><span class="value">${value}</span></div>`;

export const badge = (status: string | null | undefined): Html =>
  status ? html`<span class="badge ${status}">${status}</span>` : html`<span class="muted">–</span>`;

function creditsChart(days: DayFigures[], dailyLimit: number | null): Html {
  const spec = {
    kind: "bars",
    x: days.map((d) => epoch(d.day)),
    series: [
      { label: "Credits spent", values: days.map((d) => d.credits) },
      { label: "Credits saved", values: days.map((d) => d.savedCredits) },
    ],
    ...(dailyLimit === null ? {} : { limits: [{ label: "Daily budget", value: dailyLimit }] }),
    yLabel: "credits",
  };
  const table = grid({
    label: "Credits per day",
    head: [
      "Day",
      { text: "Credits spent", n: true },
      { text: "Credits saved", n: true },
      { text: "Calls from the store", n: true },
    ],
    rows: days.map(
      (d) =>
        html`<tr><td>${time(`${d.day}T00:00:00.000Z`, true)}</td><td class="n">${num(d.credits)}</td><td class="n">${num(d.savedCredits)}</td><td class="n">${num(d.callsFromStore)}</td></tr>`,
    ),
  });
  return html`${chart({ id: "credits", title: "Credits per day", label: `Credits spent and saved per day over the last ${DAYS} days`, table })}${jsonScript("credits", spec)}`;
}

function runsChart(days: DayFigures[]): Html {
  const spec = {
    kind: "bars",
    x: days.map((d) => epoch(d.day)),
    series: OUTCOMES.map((o) => ({ label: o, values: days.map((d) => d.runs[o] ?? 0), stack: "runs" })),
    yLabel: "runs",
  };
  const table = grid({
    label: "Runs per day by outcome",
    head: ["Day", ...OUTCOMES.map((o) => ({ text: o, n: true as const }))],
    rows: days.map(
      (d) =>
        html`<tr><td>${time(`${d.day}T00:00:00.000Z`, true)}</td>${OUTCOMES.map((o) => html`<td class="n">${num(d.runs[o] ?? 0)}</td>`)}</tr>`,
    ),
  });
  return html`${chart({ id: "runs", title: "Runs per day by outcome", label: `Runs per day by outcome over the last ${DAYS} days`, table })}${jsonScript("runs", spec)}`;
}
