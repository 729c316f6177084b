import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ValidationError } from "../core/errors.js";
import { listen } from "../core/listen.js";
import { API_PREFIX, SLUG_PATTERN } from "../schema/catalog.js";
import { KeyRing } from "./auth.js";
import { EmulatorClock, parseClockBody } from "./clock.js";
import { FaultState } from "./faults.js";
import { Ledger, type LedgerSnapshot } from "./ledger.js";
import {
  type EmulatorOptions,
  type FaultPatch,
  type FaultSettings,
  parseFaultPatch,
  type ResolvedOptions,
  resolveOptions,
} from "./options.js";
import { ReportStore } from "./reports.js";
import { envelope, sendText, TraceIds } from "./respond.js";
import { type EmulatorState, handleSkillCall, type RawBody } from "./skill-call.js";

/** A running emulator. */
export interface Emulator {
  /** Base URL (no path): give it to the client as `baseUrl`. */
  url: string;
  port: number;
  host: string;
  /** Closes every socket, hanging ones included, and resolves once the server is closed. */
  stop(): Promise<void>;
  /** Calls and credits so far (the same as `GET /__emulator/ledger`). */
  ledger(): LedgerSnapshot;
  /** Clears the ledger and the reports, restores balances, refills rate buckets and restarts the fault draws. */
  reset(): void;
  /** Changes some fault knobs now; returns them all. */
  setFaults(patch: FaultPatch): FaultSettings;
  faults(): FaultSettings;
  /** The emulated date, yyyy-mm-dd (the same as `GET /__emulator/clock`). */
  date(): string;
  /** Moves the emulated date (either way); later calls answer at it. Throws ValidationError on a bad date. reset() keeps it. */
  setDate(date: string): string;
}

const SKILL_PREFIX = `${API_PREFIX}/skills/`;

/**
 * Starts the Skill API emulator on `host:port` (port 0: an ephemeral one).
 *
 * @example
 * const emu = await startEmulator({ latencyMs: 20, keys: [{ key: "sk-test-1234", balance: 100 }] });
 * await fetch(`${emu.url}/api/skill-api/v1/skills/marketplace-search/run`, {
 *   method: "POST",
 *   headers: { authorization: "Bearer sk-test-1234", "content-type": "application/json" },
 *   body: JSON.stringify({ keyword: "desk lamp" }),
 * });
 * await emu.stop();
 */
export async function startEmulator(input: EmulatorOptions = {}): Promise<Emulator> {
  const options = resolveOptions(input);
  const state = newState(options);
  const reset = () => {
    state.ledger.reset();
    state.reports.reset();
    state.keys.reset();
    state.faults.restart();
  };
  const server = createServer((req, res) => {
    readBody(req, options.maxBodyBytes, (raw) => route(state, req, res, raw, reset));
  });
  server.keepAliveTimeout = 60_000;
  await listen(server, options.port, options.host);
  const { port } = server.address() as AddressInfo;
  const hostInUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
  let stopped: Promise<void> | null = null;

  return {
    url: `http://${hostInUrl}:${port}`,
    port,
    host: options.host,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        for (const t of state.timers) clearTimeout(t);
        state.timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
    ledger: () => state.ledger.snapshot(),
    reset,
    setFaults: (patch) => state.faults.update(parseFaultPatch(patch)),
    faults: () => ({ ...state.faults.settings }),
    date: () => state.clock.date(),
    setDate: (date) => state.clock.set(date),
  };
}

/** A fresh emulator's state: keys at their balances, an empty ledger, no reports, the fault draws from the seed. */
function newState(options: ResolvedOptions): EmulatorState {
  return {
    options,
    keys: new KeyRing(options.keys),
    ledger: new Ledger(options.ledgerLimit),
    faults: new FaultState(options.faults, options.seed),
    reports: new ReportStore({
      pendingPolls: options.reportPendingPolls,
      parts: options.reportParts,
      rowsPerPart: options.reportRowsPerPart,
      failedReports: options.failedReports,
      deniedConnections: options.deniedConnections,
    }),
    clock: new EmulatorClock(options.date),
    traces: new TraceIds(),
    hanging: new Set(),
    timers: new Set(),
  };
}

function readBody(req: IncomingMessage, limit: number, done: (raw: RawBody) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  });
  req.on("end", () =>
    done(size > limit ? "too-large" : chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)),
  );
  req.on("error", () => req.destroy());
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  sendText(res, status, JSON.stringify(value));
}

function route(
  state: EmulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  raw: RawBody,
  reset: () => void,
): void {
  const path = (req.url ?? "/").split("?")[0] as string;
  if (path.startsWith(SKILL_PREFIX) && path.endsWith("/run")) {
    const slug = path.slice(SKILL_PREFIX.length, -"/run".length);
    if (SLUG_PATTERN.test(slug)) {
      handleSkillCall(state, req, res, slug, raw);
      return;
    }
  }
  if (path.startsWith("/__emulator/")) {
    const answer = admin(state, req.method ?? "GET", path.slice("/__emulator/".length), raw, reset);
    sendJson(res, answer.status, answer.body);
    return;
  }
  const body = envelope(
    404,
    `no such endpoint: ${req.method} ${path}`,
    null,
    Date.now(),
    state.traces.next(),
  );
  sendJson(res, 404, body);
}

/** The emulator's own endpoints (no key needed: they exist only on a local emulator). */
function admin(
  state: EmulatorState,
  method: string,
  name: string,
  raw: RawBody,
  reset: () => void,
): { status: number; body: unknown } {
  if (name === "ledger" && method === "GET") return { status: 200, body: state.ledger.snapshot() };
  if (name === "health" && method === "GET") return { status: 200, body: { ok: true } };
  if (name === "reset" && method === "POST") {
    reset();
    return { status: 200, body: { ok: true } };
  }
  if (name === "faults" && method === "GET") return { status: 200, body: state.faults.settings };
  if (name === "faults" && method === "POST")
    return change(raw, "the body must be a JSON object of fault settings", (json) =>
      state.faults.update(parseFaultPatch(json)),
    );
  if (name === "clock" && method === "GET") return { status: 200, body: { date: state.clock.date() } };
  if (name === "clock" && method === "POST")
    return change(
      raw,
      'the body must be a JSON object like {"date":"2026-11-08"} or {"advance":"7d"}',
      (json) => ({
        date: state.clock.move(parseClockBody(json)),
      }),
    );
  return { status: 404, body: { error: `no emulator endpoint ${method} /__emulator/${name}` } };
}

/** Applies a JSON body to a setting: 200 with the result, or 400 saying what is wrong. */
function change(
  raw: RawBody,
  notJson: string,
  apply: (json: unknown) => unknown,
): { status: number; body: unknown } {
  try {
    return {
      status: 200,
      body: apply(raw === "too-large" ? null : JSON.parse(raw.toString("utf8") || "{}")),
    };
  } catch (err) {
    return { status: 400, body: { error: err instanceof ValidationError ? err.message : notJson } };
  }
}
