import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { SheetsConnector } from "../connectors/sheets/connector.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import { ValidationError } from "../core/errors.js";
import { listen } from "../core/listen.js";
import { type Log, textLog } from "../core/log.js";
import { registerSecret } from "../core/redact.js";
import { type LoadedPipeline, listBuiltinPipelines, loadPipeline } from "../engine/define/pipeline-file.js";
import { loadPrices, type PriceTable } from "../engine/define/prices.js";
import type { NotifyTarget } from "../engine/notify/config.js";
import { pipelineComments } from "../engine/publish/console/table-comments.js";
import { pipelineColumnTypes } from "../engine/publish/read-table.js";
import type { SkillCaller, WorkersOptions } from "../engine/start/start-run.js";
import { migrateToLatest } from "../store/migrate.js";
import { RequestAuthenticator } from "./auth.js";
import { consoleAssets } from "./console/assets.js";
import type { ConsoleContext } from "./console/context.js";
import { ConsoleSessions } from "./console/sessions.js";
import { handleRequest, type RequestHandling } from "./handle-request.js";
import { RunQueue } from "./queue.js";
import type { RouteContext } from "./routes.js";
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
  /** `--workers`: the runs' calls are queued for `skillsync worker` processes (default: made here). */
  workers?: WorkersOptions | undefined;
  /** Webhooks told of every run's end (`--notify`; docs/notifications.md). */
  notify?: readonly NotifyTarget[] | undefined;
  /** Told when a sheet schedule is made or deleted here, so this process's scheduler sees it at once. */
  onSchedulesChanged?: (() => void) | undefined;
}

export interface SkillsyncServer {
  url: string;
  port: number;
  /** The console's one-time sign-in link (good once, for 15 minutes): printed at start, never logged. */
  consoleLink: string;
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
    workers: o.workers,
    notify: o.notify,
  });
  const auth = new RequestAuthenticator(secret, o.warehouse.db, o.now);
  const ctx = routeContext(o, pipelines, prices, queue);
  const sessions = new ConsoleSessions(secret, o.now);
  const console: ConsoleContext = {
    route: ctx,
    sessions,
    comments: pipelineComments(pipelines),
    assets: consoleAssets(),
    ranNow: new Map(),
  };
  const server = httpServer(o, {
    ctx,
    console,
    auth,
    log: o.log ?? textLog(),
    bodyLimit: o.bodyLimit ?? 64 * 1024,
    bodyTimeoutMs: o.bodyTimeoutMs ?? 10_000,
  });
  await listen(server, o.port ?? 8787, o.host ?? "127.0.0.1");
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  const url = `http://${host}:${port}`;
  return {
    url,
    port,
    consoleLink: `${url}/console/signin?token=${sessions.issueLink()}`,
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

/** What the routes answer from: the pipelines a request may name, the queue, the ceilings and prices. */
function routeContext(
  o: ServerOptions,
  pipelines: LoadedPipeline[],
  prices: PriceTable,
  queue: RunQueue,
): RouteContext {
  return {
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
}

/** The node:http server, its time-outs set, handing each request to handleRequest. */
function httpServer(o: ServerOptions, h: RequestHandling): Server {
  const headersTimeoutMs = o.headersTimeoutMs ?? 10_000;
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      // A backstop only: node's own bare 408 for a request still arriving when the body timeout
      // has long passed (a refused body still draining, a body left unread after a 401).
      requestTimeout: headersTimeoutMs + 2 * h.bodyTimeoutMs,
      keepAliveTimeout: o.idleTimeoutMs ?? 5_000,
      // Node checks the two timeouts above only this often (by default every 30 s).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
    },
    (req, res) => void handleRequest(h, req, res),
  );
  // Without this node sends "100 Continue" before the body's size has been checked.
  server.on("checkContinue", (req, res) => void handleRequest(h, req, res, true));
  return server;
}
