import type { IncomingMessage, ServerResponse } from "node:http";
import { formatIssues, fromZodIssues } from "../core/errors.js";
import { canonicalJson, sha256Hex } from "../core/hash.js";
import { getOperation, type Operation } from "../schema/catalog.js";
import { requestedIdentifiers } from "../schema/patent-identifier.js";
import type { Account, KeyRing } from "./auth.js";
import type { EmulatorClock } from "./clock.js";
import { applyDrift, malformedBody } from "./distort.js";
import type { FaultState } from "./faults.js";
import { genericOperation, notServedHint } from "./generic.js";
import type { CallStatus, Ledger } from "./ledger.js";
import type { ResolvedOptions } from "./options.js";
import { planCall } from "./plan.js";
import { priceOf } from "./pricing.js";
import type { Plan, ReportStore } from "./reports.js";
import { envelope, sendEnvelope, sendText, type TraceIds } from "./respond.js";

/** The mutable state of one emulator instance, shared by its request handlers. */
export interface EmulatorState {
  options: ResolvedOptions;
  keys: KeyRing;
  ledger: Ledger;
  faults: FaultState;
  reports: ReportStore;
  /** The emulated date; a call is answered at the date it is processed. */
  clock: EmulatorClock;
  traces: TraceIds;
  /** Answers held back: timeouts that never answer, latency timers. Cleared by stop(). */
  hanging: Set<ServerResponse>;
  timers: Set<NodeJS.Timeout>;
}

/** The request body as read by the server: bytes, or too large to read. */
export type RawBody = Buffer | "too-large";

/** What a call comes to: a refusal, a platform error, silence, a broken body or an answer. */
type Outcome = { status: CallStatus; credits: number; reportId?: string } & (
  | { kind: "refuse"; httpStatus: number; msg: string; headers?: Record<string, string> }
  | { kind: "platform"; code: number; msg: string }
  | { kind: "hang" }
  | { kind: "malformed"; variant: number; data: Record<string, unknown> }
  | { kind: "answer"; data: Record<string, unknown> }
);

interface Call {
  seq: number;
  slug: string;
  bodyHash: string | null;
  items?: string[];
}

const refuse = (
  httpStatus: number,
  status: CallStatus,
  msg: string,
  headers?: Record<string, string>,
): Outcome => ({
  kind: "refuse",
  httpStatus,
  status,
  msg,
  credits: 0,
  ...(headers ? { headers } : {}),
});

/**
 * One call of `POST /api/skill-api/v1/skills/{slug}/run`: decided, recorded in the ledger, then
 * answered (after the injected latency).
 */
export function handleSkillCall(
  state: EmulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  slug: string,
  raw: RawBody,
): void {
  const started = Date.now();
  const call: Call = { seq: state.ledger.nextSeq(), slug, bodyHash: null };
  const traceId = state.traces.next();
  const outcome = evaluate(state, req, call, raw, started);
  const httpStatus = outcome.kind === "refuse" ? outcome.httpStatus : outcome.kind === "hang" ? null : 200;
  const entry = {
    ...call,
    credits: outcome.credits,
    status: outcome.status,
    httpStatus,
    ...(outcome.reportId ? { reportId: outcome.reportId } : {}),
  };
  // A call is billed when its answer goes out (a hang is billed at once: the work was done). A
  // client that disconnects during the latency abandons the call, as with a cancelled request.
  let clientGone = false;
  res.on("close", () => {
    if (!res.writableFinished) clientGone = true;
  });
  const deferCharge = outcome.kind === "answer" || outcome.kind === "malformed";
  if (!deferCharge) state.ledger.record(entry);
  if (outcome.kind === "hang") {
    state.hanging.add(res);
    res.on("close", () => state.hanging.delete(res));
    return;
  }
  afterLatency(state, () => {
    if (deferCharge) {
      if (clientGone || res.destroyed) {
        state.ledger.record({ ...entry, credits: 0, status: "client-gone", httpStatus: null });
        return;
      }
      state.ledger.record(entry);
    }
    sendOutcome(res, outcome, started, traceId);
  });
}

/** Runs `send` after the injected latency (at once without one); stop() clears the timer. */
function afterLatency(state: EmulatorState, send: () => void): void {
  const wait = state.faults.delay();
  if (wait <= 0) {
    send();
    return;
  }
  const timer = setTimeout(() => {
    state.timers.delete(timer);
    send();
  }, wait);
  state.timers.add(timer);
}

/** Writes the answer an outcome comes to: the refusal, the platform error, the broken or the good body. */
function sendOutcome(
  res: ServerResponse,
  outcome: Exclude<Outcome, { kind: "hang" }>,
  started: number,
  traceId: string,
): void {
  if (outcome.kind === "refuse") {
    const body = envelope(outcome.httpStatus, outcome.msg, null, started, traceId);
    sendText(res, outcome.httpStatus, JSON.stringify(body), outcome.headers);
  } else if (outcome.kind === "platform") {
    sendText(res, 200, JSON.stringify(envelope(outcome.code, outcome.msg, null, started, traceId)));
  } else if (outcome.kind === "malformed") {
    const text = JSON.stringify(envelope(0, "success", outcome.data, started, traceId));
    const broken = malformedBody(text, outcome.data, outcome.variant);
    sendText(res, 200, broken.body, {}, broken.contentType);
  } else {
    sendEnvelope(res, 200, envelope(0, "success", outcome.data, started, traceId)).catch(() => res.destroy());
  }
}

/**
 * The checks in the order a real gateway makes them: method, key, operation, access, rate limit,
 * body, validation, resource, balance; then the injected faults, the work and the charge. Only
 * processed calls are charged.
 */
function evaluate(
  state: EmulatorState,
  req: IncomingMessage,
  call: Call,
  raw: RawBody,
  started: number,
): Outcome {
  const admitted = admit(state, req, call.slug, raw, started);
  if ("kind" in admitted) return admitted;
  const { op, account } = admitted;
  const request = readRequest(op, call, admitted.raw);
  if ("kind" in request) return request;
  const { body } = request;
  const plan = planCall(op, body, state.reports, state.clock.day());
  if ("error" in plan)
    return refuse(plan.error.status, plan.error.status === 403 ? "forbidden" : "not-found", plan.error.msg);
  const price = priceOf(op, body, state.options.prices);
  if (price > account.balance) {
    return refuse(
      402,
      "payment-required",
      `this call costs ${price} credits; the key has ${account.balance} left`,
    );
  }
  return perform(state, call, op, plan, { account, price });
}

/** The gateway's checks before the body is read: method, key, operation, access, rate limit, size. */
function admit(
  state: EmulatorState,
  req: IncomingMessage,
  slug: string,
  raw: RawBody,
  started: number,
): Outcome | { op: Operation; account: Account; raw: Buffer } {
  if (req.method !== "POST") return refuse(400, "invalid", `${slug}: use POST with a JSON object body`);
  const auth = state.keys.authenticate(req.headers.authorization);
  if (!auth.ok) return refuse(401, "unauthorized", auth.msg);
  const op = getOperation(slug) ?? genericOperation(slug, state.options.genericSlugs);
  if (!op)
    return refuse(
      404,
      "unknown-operation",
      `no documented operation with slug "${slug}"${notServedHint(slug)}`,
    );
  const { account } = auth;
  if (account.deny.has(op.family))
    return refuse(403, "forbidden", `this API key has no access to ${op.family} operations`);
  const retryAfter = state.faults.takeToken(account.index, started);
  if (retryAfter !== null) {
    return refuse(429, "rate-limited", `rate limited; retry after ${retryAfter} s`, {
      "retry-after": String(retryAfter),
    });
  }
  if (raw === "too-large")
    return refuse(413, "too-large", `request body is larger than ${state.options.maxBodyBytes} bytes`);
  return { op, account, raw };
}

/**
 * The body as a valid request of `op`; the call gets its body hash (of what was sent when it is
 * invalid) and, for a patent-identifier operation, the identifiers it asks for.
 */
function readRequest(op: Operation, call: Call, raw: Buffer): Outcome | { body: Record<string, unknown> } {
  const { slug } = call;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString("utf8"));
  } catch {
    return refuse(400, "invalid", `${slug}: the body is not valid JSON`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return refuse(400, "invalid", `${slug}: the body must be a JSON object`);
  }
  const result = op.request.safeParse(parsed);
  if (!result.success) {
    call.bodyHash = sha256Hex(canonicalJson(parsed));
    return refuse(400, "invalid", formatIssues(`request for ${slug}`, fromZodIssues(result.error.issues)));
  }
  const body = result.data;
  call.bodyHash = sha256Hex(canonicalJson(body));
  if (op.family === "patent-identifier") call.items = requestedIdentifiers(body);
  return { body };
}

/** An accepted call: the injected faults, else the work, charged to the key whatever the answer's fate. */
function perform(
  state: EmulatorState,
  call: Call,
  op: Operation,
  plan: Extract<Plan, { run: unknown }>,
  charge: { account: Account; price: number },
): Outcome {
  const faults = state.faults.decide(call.seq);
  if (faults.serverError !== null)
    return refuse(faults.serverError, "server-error", "the service failed (injected fault)");
  if (faults.platformError)
    return { kind: "platform", status: "platform-error", credits: 0, ...faults.platformError };

  const { data, reportId } = plan.run();
  charge.account.balance -= charge.price;
  const charged = { credits: charge.price, ...(reportId ? { reportId } : {}) };
  if (faults.timeout) return { kind: "hang", status: "timeout", ...charged };
  if (faults.malformed !== null)
    return { kind: "malformed", status: "malformed", variant: faults.malformed, data, ...charged };
  if (faults.drift !== null)
    return { kind: "answer", status: "drift", data: applyDrift(data, op, faults.drift), ...charged };
  return { kind: "answer", status: "ok", data, ...charged };
}
