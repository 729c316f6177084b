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

/** One alert as a line: `US1234567B2 legal_status Active → Inactive`, `US7654321B1 appeared`. */
function alertChange(a: P): string {
  const what = [str(a["key"]), str(a["column"])].filter(Boolean).join(" ");
  if (a["change"] === "appeared") return `${what} appeared${a["new"] == null ? "" : `: ${str(a["new"])}`}`;
  const value = (v: unknown) => (v == null ? "(none)" : str(v));
  return `${what} ${value(a["old"])} → ${value(a["new"])}`;
}

/** `(load 12)`, or `(day 2026-11-29)` for a day's digest. */
const loadOf = (p: P) => (p["digest"] === "day" ? `(day ${str(p["day"])})` : `(load ${str(p["loadId"])})`);

/**
 * A digest: its first line says how many (an e-mail's subject), then one line per alert listed,
 * and how many more were left out (a digest lists at most 200).
 */
function digestText(p: P): string {
  const alerts = Array.isArray(p["alerts"]) ? (p["alerts"] as P[]) : [];
  const count = Number(p["count"] ?? alerts.length);
  const more = Number(p["more"] ?? 0);
  return [
    `skillsync: watch ${str(p["watch"])}: ${count} alert${count === 1 ? "" : "s"} in ${str(p["table"])} ${loadOf(p)}`,
    ...alerts.map((a) => `${alertChange(a)}${p["digest"] === "day" ? ` (load ${str(a["loadId"])})` : ""}`),
    ...(more > 0 ? [`… and ${more} more`] : []),
  ].join("\n");
}

/** The `text` of an event: what happened, and what to do where there is something to do. */
function eventText(e: Pick<OutboxEvent, "kind" | "payload">): string {
  const p = e.payload;
  switch (e.kind) {
    case "alert": {
      const a = (p["alert"] ?? {}) as P;
      return `skillsync: watch ${str(p["watch"])}: ${str(p["table"])} ${alertChange(a)} (load ${str(a["loadId"])})`;
    }
    case "alert.digest":
      return digestText(p);
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

/** An event as an e-mail: the text's first line as its subject, the whole text as its body. */
export function eventMail(e: OutboxEvent): { subject: string; text: string } {
  const { text } = eventBody(e);
  return { subject: (text.split("\n")[0] ?? text).slice(0, 200), text: `${text}\n` };
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
