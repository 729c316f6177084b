import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SheetsConnector } from "../connectors/sheets/connector.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import { ValidationError } from "../core/errors.js";
import { type Log, textLog } from "../core/log.js";
import { redact, registerSecret } from "../core/redact.js";
import { type LoadedPipeline, listBuiltinPipelines, loadPipeline } from "../engine/define/pipeline-file.js";
import { loadPrices, type PriceTable } from "../engine/define/prices.js";
import { pipelineColumnTypes } from "../engine/publish/read-table.js";
import type { RunPipelines, SkillCaller } from "../engine/run/runner.js";
import { migrateToLatest } from "../store/migrate.js";
import { type AuthFailure, RequestAuthenticator, SignatureNotRecorded } from "./auth.js";
import { readChangesRoute } from "./changes-route.js";
import {
  BodyTimedOut,
  BodyTooLarge,
  declaresTooLarge,
  errorReply,
  type Reply,
  readBody,
  send,
  sendRefusal,
} from "./http.js";
import { RunQueue } from "./queue.js";
import * as routes from "./routes.js";
import * as schedules from "./schedule-routes.js";
import { secretProblem } from "./secret-strength.js";
import { MIN_SECRET_LENGTH } from "./signature.js";

export interface ServerOptions {
  /** SKILLSYNC_SERVER_SECRET: at least 32 characters. */
  secret: string;
  warehouse: Warehouse;
  client: SkillCaller;
  /** The ceiling of any one run's credits; a request cannot ask for more. */
  maxCredits: number;
  port?: number | undefined;
  host?: string | undefined;
  /** Runs at once overall (default 2); one per pipeline in any case. */
  maxRuns?: number | undefined;
  callConcurrency?: number | undefined;
  /** The pipelines a request may name (default: the built-in ones). */
  pipelines?: LoadedPipeline[] | undefined;
  sheets?: SheetsConnector | undefined;
  /** The price table runs reserve with, as `run` and `schedule` use it (default: the catalog's). */
  prices?: PriceTable | undefined;
  /** `--allow-unpriced`: a run whose ceiling cannot bind an operation (priced 0 or unpriced) is queued, not refused. */
  allowUnpriced?: boolean | undefined;
  /** Largest request body in bytes (default 64 KB). */
  bodyLimit?: number | undefined;
  /** How long a request's body may take to arrive once its headers have, ms (default 10 s): then 408. */
  bodyTimeoutMs?: number | undefined;
  /** How long a connection may take to send a request's headers, ms (default 10 s): then 408 and closed. */
  headersTimeoutMs?: number | undefined;
  /** How long a kept-alive connection may sit idle between requests, ms (default 5 s). */
  idleTimeoutMs?: number | undefined;
  /** One `http.request` event per request; default text lines on stderr. */
  log?: Log | undefined;
  now?: (() => number) | undefined;
  /** Runs pipelines (default in this process; `--workers`: the workers make the calls). */
  run?: RunPipelines | undefined;
  /** Told when a sheet schedule is made or deleted here, so this process's scheduler sees it at once. */
  onSchedulesChanged?: (() => void) | undefined;
}

export interface SkillsyncServer {
  url: string;
  port: number;
  queue: RunQueue;
  close(): Promise<void>;
}

export function checkSecret(secret: string | undefined): string {
  if (!secret || secret.length < MIN_SECRET_LENGTH) {
    throw new ValidationError("server configuration", [
      {
        path: ["SKILLSYNC_SERVER_SECRET"],
        message: `must be set to a secret of at least ${MIN_SECRET_LENGTH} characters (e.g. openssl rand -hex 32)`,
      },
    ]);
  }
  // Long is not enough: 32 spaces or "aaaa…" would be guessed.
  const weak = secretProblem(secret);
  if (weak) {
    throw new ValidationError("server configuration", [
      { path: ["SKILLSYNC_SERVER_SECRET"], message: `${weak} (e.g. openssl rand -hex 32)` },
    ]);
  }
  return secret;
}

/** 401: `code` UNAUTHORIZED as always, `reason` which check refused the request. */
function unauthorized(f: AuthFailure): Reply {
  return {
    status: 401,
    body: { error: { code: "UNAUTHORIZED", reason: f.reason, message: redact(f.message) } },
  };
}

async function route(ctx: routes.RouteContext, method: string, url: URL, body: string): Promise<Reply> {
  let parts: string[];
  try {
    parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return errorReply(400, "BAD_PATH", "the path is not valid percent-encoding");
  }
  const [top, id, ...rest] = parts;
  if (rest.length) return errorReply(404, "NOT_FOUND", `no endpoint ${url.pathname}`);
  const want = (m: string) =>
    method === m ? undefined : errorReply(405, "METHOD_NOT_ALLOWED", `use ${m} ${url.pathname}`);
  switch (top) {
    case "pipelines":
      if (id === undefined) return want("GET") ?? routes.listPipelines(ctx);
      break;
    case "runs":
      if (id === undefined && method === "POST") return routes.postRun(ctx, body);
      if (id === undefined) return want("GET") ?? routes.listRuns(ctx);
      return want("GET") ?? routes.getRun(ctx, id);
    case "tables":
      if (id === undefined) return want("GET") ?? routes.listTablesRoute(ctx);
      return want("GET") ?? routes.readTable(ctx, id, url.searchParams);
    case "changes":
      if (id !== undefined) return want("GET") ?? readChangesRoute(ctx, id, url.searchParams);
      break;
    case "budget":
      if (id === undefined) return want("GET") ?? routes.budget(ctx);
      break;
    case "plan":
      if (id === undefined) return want("POST") ?? routes.postPlan(ctx, body);
      break;
    case "schedules":
      if (id === undefined && method === "POST") return schedules.postSchedule(ctx, body);
      if (id === undefined) return want("GET") ?? schedules.listSchedules(ctx, url.searchParams);
      return want("DELETE") ?? schedules.deleteSchedule(ctx, id);
  }
  return errorReply(404, "NOT_FOUND", `no endpoint ${url.pathname}`);
}

/**
 * Starts `skillsync serve`: signed JSON endpoints over node:http for spreadsheets and scripts.
 *
 * @example
 * const server = await startServer({ secret, warehouse, client: new SkillClient(), maxCredits: 100, port: 8787 });
 * // GET /pipelines, POST /runs, GET /runs/:id, GET /tables/:name, GET /changes/:table, GET /budget, POST /plan (all signed)
 * await server.close();
 */
export async function startServer(o: ServerOptions): Promise<SkillsyncServer> {
  const secret = checkSecret(o.secret);
  registerSecret(secret);
  await migrateToLatest(o.warehouse);
  const pipelines = o.pipelines ?? listBuiltinPipelines().map((f) => loadPipeline(f));
  const prices = o.prices ?? loadPrices();
  const queue = new RunQueue({
    warehouse: o.warehouse,
    client: o.client,
    maxRuns: o.maxRuns ?? 2,
    callConcurrency: o.callConcurrency,
    sheets: o.sheets,
    prices,
    allowUnpriced: o.allowUnpriced,
    run: o.run,
  });
  const ctx: routes.RouteContext = {
    warehouse: o.warehouse,
    pipelines: new Map(pipelines.map((p) => [p.name, p])),
    queue,
    maxCredits: o.maxCredits,
    columnTypes: pipelineColumnTypes(pipelines),
    prepare: o.client.prepare.bind(o.client),
    prices,
    allowUnpriced: o.allowUnpriced ?? false,
    schedulesChanged: o.onSchedulesChanged,
    sheets: o.sheets !== undefined,
  };
  const auth = new RequestAuthenticator(secret, o.warehouse.db, o.now);
  const log = o.log ?? textLog();
  const bodyLimit = o.bodyLimit ?? 64 * 1024;
  const bodyTimeoutMs = o.bodyTimeoutMs ?? 10_000;
  const headersTimeoutMs = o.headersTimeoutMs ?? 10_000;

  /** `expectsContinue`: the client waits for "100 Continue" before it sends the body. */
  async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue = false): Promise<void> {
    const started = performance.now();
    const method = req.method ?? "GET";
    const target = req.url ?? "/";
    const url = new URL(target, "http://server");
    let r: Reply;
    let close = false;
    let refused = false;
    let note = "";
    try {
      // Before anything else, so a body that cannot be taken is never waited for.
      if (declaresTooLarge(req, bodyLimit)) throw new BodyTooLarge(bodyLimit);
      const pre = auth.precheck(req.headers);
      if ("reason" in pre) {
        r = unauthorized(pre);
        // Told no "100 Continue", the client never sends the body it announced: the connection
        // cannot carry another request.
        close = expectsContinue;
      } else {
        if (expectsContinue) res.writeContinue();
        const body = await readBody(req, { limit: bodyLimit, timeoutMs: bodyTimeoutMs });
        const failed = await auth.verify(method, target, body, pre.timestamp, pre.signature);
        r = failed ? unauthorized(failed) : await route(ctx, method, url, body);
      }
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        r = errorReply(413, err.code, err.message);
        refused = true;
      } else if (err instanceof BodyTimedOut) {
        r = errorReply(408, err.code, err.message);
        close = true;
      } else if (err instanceof SignatureNotRecorded) {
        r = errorReply(503, err.code, err.message);
        note = ` error=${redact(err.cause instanceof Error ? err.cause.message : String(err.cause)).slice(0, 200)}`;
      } else if (err instanceof ValidationError) {
        r = errorReply(400, "VALIDATION", err.message, err.issues);
      } else {
        r = errorReply(500, "INTERNAL", "the server failed to answer; see its log");
        note = ` error=${redact(err instanceof Error ? err.message : String(err)).slice(0, 200)}`;
      }
    }
    if (refused) sendRefusal(req, res, r, bodyTimeoutMs);
    else send(res, r, close);
    const ms = Math.round(performance.now() - started);
    log(redact(`${method} ${url.pathname} ${r.status} ${ms}ms${note}`), {
      event: "http.request",
      level: r.status >= 500 ? "error" : "info",
      method,
      path: redact(url.pathname),
      status: r.status,
      ms,
    });
  }

  const server: Server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      // A backstop only: node's own bare 408 for a request still arriving when the body timeout
      // has long passed (a refused body still draining, a body left unread after a 401).
      requestTimeout: headersTimeoutMs + 2 * bodyTimeoutMs,
      keepAliveTimeout: o.idleTimeoutMs ?? 5_000,
      // Node checks the two timeouts above only this often (by default every 30 s).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
    },
    (req, res) => void handle(req, res),
  );
  // Without this node sends "100 Continue" before the body's size has been checked.
  server.on("checkContinue", (req, res) => void handle(req, res, true));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 8787, o.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    queue,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await queue.close();
      await auth.settled();
    },
  };
}
