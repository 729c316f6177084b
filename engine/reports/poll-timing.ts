import { durationMs, type ReportSpec } from "../../schema/pipeline.js";
import type { ReportPart } from "../../store/report-jobs.js";

/**
 * What a status answer means. The contract names only a pending value, so: parts present and
 * non-empty → ready, whatever the status says; a status that reads as failed, cancelled, expired
 * or an error → failed with that reason; anything else (PENDING, IN_PROGRESS, null, new words) →
 * keep polling until the timeout.
 */
export type StatusReading =
  | { state: "ready"; parts: ReportPart[] }
  | { state: "failed"; reason: string }
  | { state: "pending"; status: string | null };

const FAILED =
  /(^|[^a-z])(fail(ed|ure)?|cancell?ed|cancel|expired?|errors?|errored|aborted|rejected)([^a-z]|$)/i;
const REASON_MEMBERS = ["failureReason", "statusDetails", "statusMessage", "reason", "message", "error"];

/**
 * Reads a status (or create) answer.
 *
 * @example readStatus({ reportId: "r1", status: "CANCELLED" }) // { state: "failed", reason: "CANCELLED" }
 * @example readStatus({ status: "SUCCESS", reportParts: [{ documentToken: "d1" }] }).state // "ready"
 */
export function readStatus(data: unknown): StatusReading {
  const d = data && typeof data === "object" ? (data as Record<string, unknown>) : {};
  const list = nonEmpty(d["completedReportParts"]) ?? nonEmpty(d["reportParts"]);
  const status = typeof d["status"] === "string" ? d["status"] : null;
  if (list) {
    const parts: ReportPart[] = [];
    for (const [i, p] of list.entries()) {
      const token = p && typeof p === "object" ? (p as Record<string, unknown>)["documentToken"] : undefined;
      if (typeof token !== "string" || token === "") {
        return { state: "failed", reason: `completed part ${i + 1} has no documentToken` };
      }
      parts.push(p as ReportPart);
    }
    return { state: "ready", parts };
  }
  if (status && FAILED.test(status)) {
    const detail = REASON_MEMBERS.map((k) => d[k]).find((v) => typeof v === "string" && v.trim() !== "");
    return { state: "failed", reason: detail ? `${status}: ${String(detail)}` : status };
  }
  return { state: "pending", status };
}

function nonEmpty(v: unknown): unknown[] | undefined {
  return Array.isArray(v) && v.length > 0 ? v : undefined;
}

export interface PollTimings {
  initialMs: number;
  maxMs: number;
  factor: number;
  timeoutMs: number;
}

export function pollTimings(spec: ReportSpec): PollTimings {
  const initialMs = Math.max(1, durationMs(spec.poll.initial));
  return {
    initialMs,
    maxMs: Math.max(initialMs, durationMs(spec.poll.max)),
    factor: spec.poll.factor,
    timeoutMs: durationMs(spec.poll.timeout),
  };
}

/**
 * The waits between polls: `initial`, times `factor` each time, capped at `max`.
 *
 * @example [...take(backoff({ initialMs: 100, maxMs: 300, factor: 2, timeoutMs: 0 }), 4)] // 100, 200, 300, 300
 */
export function* backoff(t: PollTimings): Generator<number, never> {
  let delay = t.initialMs;
  for (;;) {
    yield delay;
    delay = Math.min(t.maxMs, Math.round(delay * t.factor));
  }
}

/** Waits `ms`, or less when the signal aborts; resolves true when it waited the whole time. */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (full: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(full);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
