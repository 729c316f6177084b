import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import type { WorkQueue } from "../../connectors/queue/work-queue.js";
import { SheetsConnector } from "../../connectors/sheets/connector.js";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { readConfig } from "../../core/env-config.js";
import { ValidationError } from "../../core/errors.js";
import type { Log } from "../../core/log.js";
import {
  type LoadedPipeline,
  listBuiltinPipelines,
  loadPipeline,
} from "../../engine/define/pipeline-file.js";
import { startDelivery } from "../../engine/notify/loop.js";
import { migrateToLatest } from "../../store/migrate.js";
import { dbOption, makeClient, numberFlag, portFlag, pricesOption, withReadDb } from "../context.js";
import { cliLog, logFormat } from "../log.js";
import { notifyTargets, withNotifyOption } from "../notify-option.js";
import { printLine } from "../output.js";
import { listenOrExplain } from "../port-in-use.js";
import { type RateFlags, rateSettings, withRateOptions } from "../rate-option.js";
import { fireSheetSchedules } from "../sheet-schedules.js";
import { withUnpricedOption } from "../unpriced-option.js";
import { openWorkers, type WorkersFlags, withWorkersOptions, workersFlags } from "../workers-option.js";

export interface ServeFlags extends WorkersFlags, RateFlags {
  port: string;
  host: string;
  db?: string;
  maxCredits: string;
  maxRuns: string;
  concurrency: string;
  pipelines?: string;
  baseUrl?: string;
  prices?: string;
  readDb?: string;
  notify?: string;
  allowUnpriced?: boolean;
}

/** The built-in pipelines, plus the *.yaml files of a folder; a name given twice is an error. */
export function servedPipelines(dir?: string): LoadedPipeline[] {
  const files = [
    ...listBuiltinPipelines(),
    ...(dir
      ? readdirSync(dir)
          .filter((f) => /\.ya?ml$/.test(f))
          .map((f) => join(resolve(dir), f))
      : []),
  ];
  const pipelines = files.map((f) => loadPipeline(f));
  const seen = new Map<string, string>();
  for (const p of pipelines) {
    const other = seen.get(p.name);
    if (other) {
      throw new ValidationError("--pipelines", [
        { path: [p.file], message: `pipeline name "${p.name}" is also used by ${other}` },
      ]);
    }
    seen.set(p.name, p.file);
  }
  return pipelines;
}

/** How `serve` and `console` differ: where the secret comes from, and what is done with the console's link. */
export interface ServeMode {
  /** The server secret, or undefined for SKILLSYNC_SERVER_SECRET (checked: no secret, no server). */
  secret: string | undefined;
  /** Told the one-time sign-in link once the server listens (`console` opens a browser with it). */
  onConsoleLink?: ((link: string) => void) | undefined;
}

/** Runs the server until SIGINT/SIGTERM; running runs are interrupted (resumable) on the way out. */
export async function serveCommand(
  flags: ServeFlags,
  mode: ServeMode = { secret: undefined },
): Promise<void> {
  // Loaded here: every other command would otherwise pay for the server's modules at start.
  const { checkSecret, startServer } = await import("../../server/index.js");
  // Configuration is checked before anything is opened: no secret, no server (exit 2).
  const secret = checkSecret(mode.secret ?? readConfig().serverSecret);
  const input = serveInput(flags);
  const client = makeClient(flags.baseUrl, rateSettings(flags));
  const sheets = await SheetsConnector.fromEnv();
  const warehouse = await openWarehouse(dbOption(flags), { readUrl: flags.readDb });
  // Before the notification loop's first look at the outbox (a new warehouse has no tables yet).
  await migrateToLatest(warehouse);
  const pool = await openWorkers(input.workers);
  const log = cliLog();
  const banner = serveBanner(log, flags.host);
  // The server's runs write their events to the outbox; this loop delivers them (and older ones).
  const delivery = startDelivery(warehouse, input.notify, { log });
  // What the server's runs and the sheet schedules' runs are started with.
  const runs = { warehouse, client, sheets, log, notify: input.notify, workers: pool?.options };
  const allowUnpriced = flags.allowUnpriced;
  let sheetSchedules: { sync(): void; stop(): Promise<void> } | undefined;
  try {
    const server = await listenOrExplain(
      () =>
        startServer({
          ...input.server,
          ...runs,
          secret,
          host: flags.host,
          allowUnpriced,
          onSchedulesChanged: () => sheetSchedules?.sync(),
        }),
      { port: input.server.port, host: flags.host, flag: "--port" },
    );
    banner.listening({ url: server.url, warehouse, pool, sheets, ...input.server });
    banner.console(server.consoleLink);
    mode.onConsoleLink?.(server.consoleLink);
    // Tabs refreshed on a cron, made from the add-on (POST /schedules): fired here, once a tick
    // however many servers share the warehouse.
    const { pipelines, prices } = input;
    sheetSchedules = await fireSheetSchedules({ ...runs, pipelines, prices, allowUnpriced });
    banner.say("Press Ctrl+C to stop.");
    banner.stopping(await nextSignal());
    await server.close();
  } finally {
    await sheetSchedules?.stop();
    await delivery.stop();
    await pool?.queue.close();
    await warehouse.close();
    await client.close();
  }
}

/** The flags of `serve`, checked before anything is opened. */
function serveInput(flags: ServeFlags) {
  const port = portFlag("--port", flags.port, { anyFree: true })!;
  const maxCredits = numberFlag("--max-credits", flags.maxCredits, { min: 0 })!;
  const maxRuns = numberFlag("--max-runs", flags.maxRuns, { integer: true, min: 1 })!;
  const callConcurrency = numberFlag("--concurrency", flags.concurrency, { integer: true, min: 1 })!;
  const pipelines = servedPipelines(flags.pipelines);
  // The same price table as `run` and `schedule`: runs reserve what the user says calls cost.
  const prices = pricesOption(flags.prices);
  const workers = workersFlags(flags, dbOption(flags));
  const notify = notifyTargets(flags);
  return {
    server: { port, maxCredits, maxRuns, callConcurrency, pipelines, prices },
    pipelines,
    prices,
    workers,
    notify,
  };
}

/** The first SIGINT or SIGTERM. */
function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise<NodeJS.Signals>((done) => {
    const on = (s: NodeJS.Signals) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      done(s);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/**
 * What `serve` tells a person: lines on stdout, or under `--log-format json` events on stderr
 * (the banner is one `serve.listening` event; stdout stays empty).
 */
function serveBanner(log: Log, host: string) {
  const json = logFormat() === "json";
  const say = (line: string) => (json ? undefined : printLine(line));
  return {
    say,
    listening(o: {
      url: string;
      warehouse: Warehouse;
      pool: { queue: WorkQueue } | undefined;
      sheets: SheetsConnector | undefined;
      pipelines: LoadedPipeline[];
      maxCredits: number;
      maxRuns: number;
    }) {
      const { url, warehouse, pool, sheets, pipelines, maxCredits, maxRuns } = o;
      if (json)
        log(`skillsync server listening on ${url}`, {
          event: "serve.listening",
          url,
          warehouse: warehouse.description,
          workers: pool ? pool.queue.schema : null,
          pipelines: pipelines.length,
          maxCredits,
          maxRuns,
          sheets: Boolean(sheets),
        });
      say(`skillsync server listening on ${url}`);
      say(`  warehouse: ${warehouse.description}`);
      if (pool) say(`  runs: their calls are queued for skillsync worker processes (${pool.queue.schema})`);
      say(
        `  pipelines: ${pipelines.length}; at most ${maxCredits} credits per run; ${maxRuns} run(s) at once`,
      );
      say(`  Google Sheets: ${sheets ? "configured" : "not configured (sheet inputs and outputs are off)"}`);
      if (!["127.0.0.1", "localhost", "::1"].includes(host)) {
        const note = "this is plain HTTP; put it behind HTTPS (a reverse proxy or tunnel) before exposing it";
        if (json) log(note, { event: "serve.plain-http", level: "warn", host });
        say(`  note: ${note}`);
      }
    },
    /**
     * The one-time link goes to the terminal only (as notebook servers print theirs): never into
     * the JSON log, whose lines are collected. There, sign in with the server secret.
     */
    console(link: string) {
      if (json) log("console: sign in with the server secret at /console/signin", { event: "serve.console" });
      say(`  console: ${link}`);
      say("    (a one-time sign-in link, good for 15 minutes; later, sign in with the server secret)");
    },
    stopping(signal: NodeJS.Signals) {
      const stopping = `stopping on ${signal}: running runs are interrupted and can be resumed`;
      if (json) log(stopping, { event: "serve.stopping", signal });
      say(stopping);
    },
  };
}

export function registerServeCommand(program: Command): void {
  const cmd = program
    .command("serve")
    .description(
      "serve the console at / and signed HTTP endpoints for spreadsheets: pipelines, runs, plans, tables, budget, schedules",
    )
    .option("--port <n>", "port to listen on (0: any free port)", "8787")
    .option("--host <host>", "address to listen on", "127.0.0.1");
  withServeOptions(cmd).action((flags: ServeFlags) => serveCommand(flags));
}

/** The options `serve` and `console` share: the warehouse, ceilings, pipelines, the API, notifications, workers. */
export function withServeOptions(cmd: Command): Command {
  cmd
    .option("--db <url>", "warehouse (default DATABASE_URL or ./skillsync.db)")
    .option("--max-credits <n>", "credit ceiling of any one run; requests may ask for less", "100")
    .option("--max-runs <n>", "runs at once (one per pipeline in any case)", "2")
    .option("--concurrency <n>", "calls in flight within one run", "4")
    .option("--pipelines <dir>", "serve the pipeline files of this folder besides the built-in ones")
    .option("--base-url <url>", "Skill API base URL (default SKILL_API_BASE_URL)")
    .option(
      "--prices <file>",
      "YAML price table: slug: credits-per-call, or slug: { perItem: n } (default SKILLSYNC_PRICES)",
    );
  return withUnpricedOption(withRateOptions(withNotifyOption(withWorkersOptions(withReadDb(cmd)))));
}
