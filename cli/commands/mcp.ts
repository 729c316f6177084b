import type { Command } from "commander";
import { SheetsConnector } from "../../connectors/sheets/connector.js";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { loadPrices } from "../../engine/define/prices.js";
import { migrateToLatest } from "../../store/migrate.js";
import { dbOption, makeClient, numberFlag, withReadDb } from "../context.js";
import { cliLog } from "../log.js";
import { type RateFlags, rateSettings, withRateOptions } from "../rate-option.js";
import { withUnpricedOption } from "../unpriced-option.js";
import { servedPipelines } from "./serve.js";

interface McpFlags extends RateFlags {
  db?: string;
  maxCredits: string;
  concurrency: string;
  prices?: string;
  pipelines?: string;
  baseUrl?: string;
  readDb?: string;
  allowUnpriced?: boolean;
}

/** Serves MCP on stdio until the client leaves; a run in progress is interrupted (resumable) first. */
async function mcpCommand(flags: McpFlags): Promise<void> {
  // Loaded here: every other command would otherwise pay for the MCP SDK at start.
  const { serveStdio } = await import("../../mcp/index.js");
  // Everything is checked before the warehouse is opened: a mistake is exit 2 with nothing started.
  const maxCredits = numberFlag("--max-credits", flags.maxCredits, { min: 0 })!;
  const concurrency = numberFlag("--concurrency", flags.concurrency, { integer: true, min: 1 })!;
  const prices = loadPrices(flags.prices);
  const pipelines = servedPipelines(flags.pipelines);
  const client = makeClient(flags.baseUrl, rateSettings(flags));
  // stdout is the MCP channel: the log (text or JSON) goes to stderr only.
  const log = cliLog();
  // `sheet:` outputs are pushed after a run, as `run`, `serve` and `schedule` do, when Google credentials are set.
  const sheets = await SheetsConnector.fromEnv();
  try {
    const warehouse = await openWarehouse(dbOption(flags), { readUrl: flags.readDb });
    try {
      await migrateToLatest(warehouse);
      log(`skillsync mcp: warehouse ${warehouse.description}; ${pipelines.length} pipelines`, {
        event: "mcp.ready",
        warehouse: warehouse.description,
        pipelines: pipelines.length,
      });
      const allowUnpriced = flags.allowUnpriced;
      await serveStdio(
        { warehouse, client, maxCredits, pipelines, prices, concurrency, sheets, allowUnpriced },
        log,
      );
    } finally {
      await warehouse.close();
    }
  } finally {
    await client.close();
  }
}

export function registerMcpCommand(program: Command): void {
  withUnpricedOption(withRateOptions(withReadDb(program.command("mcp"))))
    .description("serve MCP on stdio: AI agents query the warehouse and run pipelines within a credit total")
    .option("--db <url>", "warehouse (default DATABASE_URL or ./skillsync.db)")
    .requiredOption(
      "--max-credits <n>",
      "the most credits all the runs agents start through this server may spend together, for as long as it runs (0: agents only read)",
    )
    .option("--concurrency <n>", "calls in flight within one run", "4")
    .option("--prices <file>", "YAML price table: slug: credits-per-call, or slug: { perItem: n }")
    .option("--pipelines <dir>", "offer the pipeline files of this folder besides the built-in ones")
    .option("--base-url <url>", "Skill API base URL (default SKILL_API_BASE_URL)")
    .action(mcpCommand);
}
