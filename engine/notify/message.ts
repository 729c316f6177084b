import { redactDeep } from "../../core/redact.js";
import type { OutboxEvent } from "../../store/outbox-claim.js";

type P = Record<string, unknown>;

const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));

function runLine(p: P, what: string): string {
  const c = (p["counters"] ?? {}) as P;
  const names = Array.isArray(p["pipelines"]) ? p["pipelines"].join(", ") : "";
  return (
    `skillsync: run ${str(p["runId"])} (${names}) ${what}. ` +
    `${str(c["callsDone"])}/${str(c["callsPlanned"])} calls, ${str(c["callsFailed"])} failed, ` +
    `${str(c["creditsSpent"])} credits, ${str(c["rowsWritten"])} rows, ${str(c["rowsRejected"])} rejected.`
  );
}

/** The one-line `text` of an event: what happened, and what to do where there is something to do. */
function eventText(e: Pick<OutboxEvent, "kind" | "payload">): string {
  const p = e.payload;
  switch (e.kind) {
    case "run.failed":
      return `${runLine(p, "failed")}${p["error"] ? ` ${str(p["error"])}` : ""} See: skillsync runs ${str(p["runId"])}`;
    case "run.warnings":
      return `${runLine(p, "ended with warnings")} Rejected records are in skillsync_rejects; skillsync runs ${str(p["runId"])}`;
    case "run.ceiling":
      return `${runLine(p, "stopped at a credit ceiling")} ${str(p["stopReason"])} Run it again to resume once the ceiling allows.`;
    case "budget.80":
    case "budget.100":
      return (
        `skillsync: the ${str(p["budget"])} budget (${str(p["period"])}) is ${e.kind === "budget.80" ? "80 %" : "fully"} spent: ` +
        `${str(p["reservedCredits"])} of ${str(p["limitCredits"])} credits.` +
        (e.kind === "budget.100"
          ? " Runs stop at it until the period ends or skillsync budget raises it."
          : "")
      );
    case "schedule.missed":
    case "schedule.skipped":
      return `skillsync: the ${str(p["pipeline"])} tick at ${str(p["tickAt"])} was ${e.kind === "schedule.missed" ? "missed" : "skipped"}: ${str(p["reason"])}`;
    case "schedule.refresh-failed":
      return (
        `skillsync: the scheduled refresh of tab "${str(p["tab"])}" (${str(p["pipeline"])}, schedule ${str(p["schedule"])}) ` +
        `at ${str(p["tickAt"])} failed: ${str(p["reason"])}. The tab keeps its earlier rows.`
      );
    case "worker.lost":
      return (
        `skillsync: worker ${str(p["workerId"])} was lost while making batch ${str(p["jobId"])} of run ${str(p["runId"])}; ` +
        `the batch was re-queued and worker ${str(p["takenBy"])} took it over (calls it had paid for are not paid again).`
      );
  }
}

/**
 * The JSON a webhook receives: Slack's `text`, and the event's structured members under `event`
 * (its stable `id` first: receivers deduplicate on it). Redacted once more on the way out.
 */
export function eventBody(e: OutboxEvent): { text: string; event: P } {
  return redactDeep({
    text: eventText(e),
    event: { id: e.id, kind: e.kind, createdAt: e.createdAt, runId: e.runId, ...e.payload },
  });
}
