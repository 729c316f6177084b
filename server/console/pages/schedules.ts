import { randomBytes } from "node:crypto";
import { readScheduleViews, type ScheduleView } from "../../../engine/publish/console/schedule-views.js";
import { pauseSchedule, resumeSchedule } from "../../../store/schedule-state.js";
import { liveSheetSchedules, sheetScheduleKey } from "../../../store/sheet-schedules.js";
import { checkRun } from "../../routes.js";
import type { PageRequest } from "../context.js";
import { type Html, html, time } from "../html.js";
import { grid, pageReply } from "../layout.js";
import type { ConsoleReply } from "../respond.js";
import { badge } from "./overview.js";

/** Run-now forms remembered (a second click of the same form queues nothing): at most this many. */
const NONCES_KEPT = 1_000;

/** `/console/schedules`: pipeline and sheet schedules, next fire time, last outcome; pause, resume, run now. */
export async function schedulesPage(r: PageRequest): Promise<ConsoleReply> {
  const views = await readScheduleViews(r.c.route.warehouse, [...r.c.route.pipelines.values()]);
  const queued = r.url.searchParams.get("queued");
  const body = html`${queued ? html`<p class="ok" role="status">Run queued as ${queued.slice(0, 40)}: it appears under <a href="/console/runs">Runs</a> once it starts.</p>` : ""}
${
  views.length
    ? grid({
        label: "Schedules",
        head: [
          "Schedule",
          "Kind",
          "Pipeline",
          "When",
          "Next run",
          "Last run",
          "Last outcome",
          "State",
          "Actions",
        ],
        rows: views.map((v) => row(v, r.session.csrf)),
      })
    : html`<p class="muted">No schedule: add <code>schedule:</code> to a pipeline file (docs/scheduling.md), or schedule a tab from the add-on.</p>`
}`;
  return pageReply(r, { title: "Schedules", nav: "schedules", body });
}

function row(v: ScheduleView, csrf: string): Html {
  const last = v.last.runId
    ? html`<a href="/console/runs/${encodeURIComponent(v.last.runId)}">${time(v.last.at)}</a>`
    : time(v.last.at);
  return html`<tr><td>${v.key}</td><td>${v.kind}${v.target ? html`<br><span class="muted">${v.target}</span>` : ""}</td><td>${v.pipeline}</td>
<td><code>${v.cron}</code>${v.timezone ? html` <span class="muted">${v.timezone}</span>` : ""}</td><td>${v.paused ? html`<span class="muted">paused</span>` : time(v.nextRunAt)}</td>
<td>${last}</td><td>${badge(v.last.status)}</td><td>${v.paused ? html`${badge("paused")} <span class="muted">${v.pausedReason ?? ""}</span>` : "active"}</td>
<td class="actions">${action(v, v.paused ? "resume" : "pause", csrf)}${action(v, "run", csrf)}</td></tr>`;
}

const LABELS: Record<string, string> = { pause: "Pause", resume: "Resume", run: "Run now" };

function action(v: ScheduleView, what: string, csrf: string): Html {
  const nonce =
    what === "run"
      ? html`<input type="hidden" name="nonce" value="${randomBytes(12).toString("base64url")}">`
      : "";
  return html`<form method="post" action="/console/schedules/${encodeURIComponent(v.key)}/${what}">
<input type="hidden" name="csrf" value="${csrf}">${nonce}<button class="act" aria-label="${LABELS[what]} ${v.key}">${LABELS[what]}</button></form>`;
}

/** POST `/console/schedules/:key/pause|resume|run`. */
export async function scheduleAction(r: PageRequest, key: string, what: string): Promise<ConsoleReply> {
  const w = r.c.route.warehouse;
  const view = (await readScheduleViews(w, [...r.c.route.pipelines.values()])).find((v) => v.key === key);
  if (!view) return { status: 404, text: `no schedule "${key.slice(0, 100)}"` };
  if (what === "pause") await pauseSchedule(w, key, "paused from the console");
  else if (what === "resume") await resumeSchedule(w, key);
  else if (what === "run") return runNow(r, view);
  else return { status: 404, text: `no action "${what.slice(0, 40)}"` };
  return { status: 303, location: "/console/schedules" };
}

/**
 * Runs a schedule's pipeline now with its params and ceiling. The form's nonce is taken before
 * anything is awaited, so the same form sent twice at once (a double click) queues one run.
 */
function runNow(r: PageRequest, v: ScheduleView): Promise<ConsoleReply> {
  const nonce = (r.form.get("nonce") ?? "").slice(0, 64);
  const earlier = nonce ? r.c.ranNow.get(nonce) : undefined;
  if (earlier) return earlier;
  const queued = queueRun(r, v);
  if (nonce) {
    r.c.ranNow.set(nonce, queued);
    if (r.c.ranNow.size > NONCES_KEPT) r.c.ranNow.delete(r.c.ranNow.keys().next().value!);
  }
  return queued;
}

async function queueRun(r: PageRequest, v: ScheduleView): Promise<ConsoleReply> {
  const spec = await runSpec(r, v);
  if (!spec) return { status: 409, text: `this server has no pipeline "${v.pipeline}" to run` };
  const run = checkRun(r.c.route, spec, "run now");
  const job = r.c.route.queue.submit(run.pipeline, run.params, run.maxCredits);
  return { status: 303, location: `/console/schedules?queued=${encodeURIComponent(job.id)}` };
}

/** The pipeline, params and ceiling a schedule's ticks run with. */
async function runSpec(r: PageRequest, v: ScheduleView) {
  if (v.kind === "sheet") {
    const s = (await liveSheetSchedules(r.c.route.warehouse)).find((x) => sheetScheduleKey(x.id) === v.key);
    return (
      s && { pipeline: s.pipeline, params: s.params as Record<string, string>, maxCredits: s.maxCredits }
    );
  }
  const p = r.c.route.pipelines.get(v.pipeline);
  const spec = p?.schedule;
  return (
    p &&
    spec && {
      pipeline: p.name,
      params: spec.params,
      ...(spec.maxCredits ? { maxCredits: spec.maxCredits } : {}),
    }
  );
}
