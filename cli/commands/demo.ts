import type { Command } from "commander";
import { SkillClient } from "../../connectors/skill-api/client.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { runPipelines } from "../../engine/run/runner.js";
import { dbOption, withWarehouse } from "../context.js";
import { printLine, printTable } from "../output.js";
import { makeReporter } from "../progress.js";
import { tableCounts } from "./warehouse.js";

export const DEMO_KEYWORDS = ["usb c hub", "standing desk", "led desk lamp"];
export const DEMO_QUERY = "drone battery cooling";

export const DEMO_QUERIES = [
  "select keyword, asin, organic_position, sponsored_position, price from marketplace_rank_history order by keyword, organic_position limit 10",
  "select publication_number, title, simple_legal_status, legal_date from patent_overview order by legal_date desc limit 10",
  "select a.name, count(*) as patents from patent_applicants a group by a.name order by patents desc limit 10",
];

/**
 * The main job on a fresh clone: the local emulator in-process, the marketplace pipeline for a
 * few keywords and the chain patent search → bibliography → legal status into ./skillsync.db.
 */
async function demo(flags: { db?: string; json?: boolean }): Promise<void> {
  // Loaded here: every other command would otherwise pay for the emulator's modules at start.
  const { DEMO_KEY, startEmulator } = await import("../../emulator/index.js");
  const emulator = await startEmulator({ port: 0, host: "127.0.0.1" });
  const client = new SkillClient({ baseUrl: emulator.url, apiKey: DEMO_KEY });
  const reporter = makeReporter("auto");
  try {
    printLine(`local emulator at ${emulator.url} (synthetic data; no real credits are spent)`);
    const dbUrl = dbOption(flags);
    await withWarehouse(dbUrl, async (warehouse) => {
      printLine(`warehouse: ${warehouse.description}`);
      const market = await runPipelines({
        warehouse,
        client,
        pipelines: [loadPipeline("marketplace-search")],
        params: { keyword: DEMO_KEYWORDS, pages: ["2"] },
        concurrency: 8,
        reporter,
      });
      const patents = await runPipelines({
        warehouse,
        client,
        pipelines: ["patent-search", "patent-bibliography", "patent-legal-status"].map((p) =>
          loadPipeline(p),
        ),
        params: { q: [DEMO_QUERY], pages: ["2"] },
        concurrency: 8,
        reporter,
      });
      reporter.stop();
      for (const s of [market, patents]) {
        printLine(
          `run ${s.runId}: ${s.status}, ${s.counters.callsDone} calls (${s.counters.callsCached} from store), ${s.counters.rowsWritten} rows, ${s.counters.creditsSpent} credits`,
        );
      }
      printLine("");
      printTable(
        (await tableCounts(warehouse)).filter((t) => !t.table.startsWith("skillsync_") && t.rows > 0),
      );
      const ledger = emulator.ledger();
      printLine("");
      printLine(`credits charged by the emulator: ${ledger.totalCredits} over ${ledger.totalCalls} calls`);
      printLine('try these (npx skillsync sql "…", or sqlite3 on the file):');
      for (const q of DEMO_QUERIES) printLine(`  ${q}`);
    });
  } finally {
    reporter.stop();
    await client.close();
    await emulator.stop();
  }
}

export function registerDemoCommand(program: Command): void {
  program
    .command("demo")
    .description(
      "load demo tables from the local emulator into ./skillsync.db (no real API, no real credits)",
    )
    .option("--db <url>", "warehouse URL (default DATABASE_URL or ./skillsync.db)")
    .action(demo);
}
