import type { Command } from "commander";
import { SkillClient } from "../../connectors/skill-api/client.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { readChanges } from "../../engine/publish/changes.js";
import { readOnlyQuery } from "../../engine/publish/query.js";
import { isToolkitTable } from "../../engine/publish/read-table.js";
import { type RunSummary, startRun } from "../../engine/start/start-run.js";
import { loadsOfRun } from "../../store/loads.js";
import { dbOption, withWarehouse } from "../context.js";
import { printLine, printTable } from "../output.js";
import { callsDetail, makeReporter } from "../progress.js";
import { tableCounts } from "./warehouse.js";

export const DEMO_KEYWORDS = ["usb c hub", "standing desk", "led desk lamp"];
export const DEMO_QUERY = "drone battery cooling";
/** Result pages per keyword (and, in the plain demo, for the patent query): next pages show in the counts. */
const DEMO_PAGES = "2";
/**
 * `demo --changes`: the patents around the demo's products — the keywords as patent queries, 50
 * results each (about a hundred patents: in a week some change status and new ones are published).
 */
const CHANGES_PATENT_PARAMS = { q: DEMO_KEYWORDS, num: ["50"] };
/** `demo --changes`: the emulated days between its two loads. */
const DEMO_CHANGES_DAYS = 7;
/** `demo --changes`: at most this many changes and price drops printed. */
const SHOWN = 15;

const DEMO_QUERIES = [
  "select keyword, asin, organic_position, sponsored_position, price from marketplace_rank_history order by keyword, organic_position limit 10",
  "select publication_number, title, simple_legal_status, legal_date from patent_overview order by legal_date desc limit 10",
  "select a.name, count(*) as patents from patent_applicants a group by a.name order by patents desc limit 10",
];

type Emulator = import("../../emulator/index.js").Emulator;

/** What every step of the demo works with. */
interface DemoContext {
  warehouse: Warehouse;
  client: SkillClient;
}

/** One load of the demo: the marketplace run and the patent run (search → bibliography → legal status). */
interface DemoLoad {
  market: RunSummary;
  patents: RunSummary;
}

/**
 * The main job on a fresh clone: the local emulator in-process, the marketplace pipeline for a
 * few keywords and the chain patent search → bibliography → legal status into ./skillsync.db.
 * With `--changes`: two loads a week apart on the emulator's clock, then what changed.
 */
async function demo(flags: { db?: string; changes?: boolean }): Promise<void> {
  // Loaded here: every other command would otherwise pay for the emulator's modules at start.
  const { DEFAULT_EMULATOR_DATE, DEMO_KEY, startEmulator } = await import("../../emulator/index.js");
  const emulator = await startEmulator({ port: 0, host: "127.0.0.1", date: DEFAULT_EMULATOR_DATE });
  const client = new SkillClient({ baseUrl: emulator.url, apiKey: DEMO_KEY });
  try {
    printLine(`local emulator at ${emulator.url} (synthetic data; no real credits are spent)`);
    await withWarehouse(dbOption(flags), async (warehouse) => {
      printLine(`warehouse: ${warehouse.description}`);
      const ctx = { warehouse, client };
      if (flags.changes) await changesDemo(ctx, emulator);
      else await firstDemo(ctx, emulator);
    });
  } finally {
    await client.close();
    await emulator.stop();
  }
}

/** The plain demo: one load, the tables it filled, the credits, queries to try. */
async function firstDemo(ctx: DemoContext, emulator: Emulator): Promise<void> {
  printRuns(await loadDemo(ctx, { q: [DEMO_QUERY], pages: [DEMO_PAGES] }, false));
  printLine("");
  printTable((await tableCounts(ctx.warehouse)).filter((t) => !isToolkitTable(t.table) && t.rows > 0));
  printCredits(emulator);
  printLine('try these (npx skillsync sql "…", or sqlite3 on the file):');
  for (const q of DEMO_QUERIES) printLine(`  ${q}`);
}

/**
 * `demo --changes`: a load at the emulator's date, the clock moved a week, a second load, then the
 * legal-status changes and the biggest price drops between the two. Both loads ask everything
 * again (`--refresh`): stored answers are the emulator's of another day.
 */
async function changesDemo(ctx: DemoContext, emulator: Emulator): Promise<void> {
  printLine(`first load at emulated date ${emulator.date()}`);
  const first = await loadDemo(ctx, CHANGES_PATENT_PARAMS, true);
  printRuns(first);
  printLine(`second load at emulated date ${emulator.setDate(addDays(emulator.date(), DEMO_CHANGES_DAYS))}`);
  const second = await loadDemo(ctx, CHANGES_PATENT_PARAMS, true);
  printRuns(second);
  const since = await loadIdOf(ctx.warehouse, first.patents, "patent-legal-status");
  printLine("");
  await printLegalChanges(ctx.warehouse, since);
  printLine("");
  await printPriceDrops(
    ctx.warehouse,
    await loadIdOf(ctx.warehouse, first.market, "marketplace-search"),
    await loadIdOf(ctx.warehouse, second.market, "marketplace-search"),
  );
  printCredits(emulator);
  printLine("more questions in SQL: docs/analysts.md");
}

/** One load: the marketplace pipeline for the demo keywords, then the patent chain for `patentParams`. */
async function loadDemo(
  ctx: DemoContext,
  patentParams: Record<string, string[]>,
  refresh: boolean,
): Promise<DemoLoad> {
  // One progress bar per load: a stopped bar does not start again.
  const reporter = makeReporter("auto");
  const common = { ...ctx, concurrency: 8, reporter, refresh };
  try {
    printLine(
      `marketplace-search for ${named("keyword", "keywords", DEMO_KEYWORDS)} (${DEMO_PAGES} pages each)`,
    );
    const { summary: market } = await startRun({
      ...common,
      pipelines: [loadPipeline("marketplace-search")],
      params: { keyword: DEMO_KEYWORDS, pages: [DEMO_PAGES] },
    });
    printLine(patentsLine(patentParams));
    const { summary: patents } = await startRun({
      ...common,
      pipelines: ["patent-search", "patent-bibliography", "patent-legal-status"].map((p) => loadPipeline(p)),
      params: patentParams,
    });
    return { market, patents };
  } finally {
    reporter.stop();
  }
}

/** `keywords "usb c hub", "standing desk"`: the demo's inputs, named, so its tables can be traced back to them. */
function named(one: string, many: string, values: string[]): string {
  return `${values.length === 1 ? one : many} ${values.map((v) => JSON.stringify(v)).join(", ")}`;
}

/** What the patent chain of a load asks for: its queries and how many results each. */
function patentsLine(params: Record<string, string[]>): string {
  const queries = params["q"] ?? [];
  const pages = params["pages"]?.[0];
  const num = params["num"]?.[0];
  const each = queries.length > 1 ? " each" : "";
  const size = pages ? ` (${pages} pages${each})` : num ? ` (${num} results${each})` : "";
  return `patent-search for ${named("query", "queries", queries)}${size}, then patent-bibliography and patent-legal-status of the patents found`;
}

function printRuns(load: DemoLoad): void {
  for (const s of [load.market, load.patents]) {
    printLine(
      `run ${s.runId}: ${s.status}, ${s.counters.callsDone} calls ${callsDetail(s.counters)}, ${s.counters.rowsWritten} rows, ${s.counters.creditsSpent} credits`,
    );
  }
}

function printCredits(emulator: Emulator): void {
  const ledger = emulator.ledger();
  printLine("");
  printLine(`credits charged by the emulator: ${ledger.totalCredits} over ${ledger.totalCalls} calls`);
}

/** The load (skillsync_loads) of a pipeline in a run. */
async function loadIdOf(w: Warehouse, run: RunSummary, pipeline: string): Promise<number> {
  const load = (await loadsOfRun(w, run.runId)).find((l) => l.pipeline === pipeline);
  if (!load) throw new Error(`demo: run ${run.runId} (${run.status}) has no load of ${pipeline}`);
  return load.id;
}

/** What `skillsync changes patent_legal_status --since <load>` prints, the first SHOWN of them. */
async function printLegalChanges(w: Warehouse, since: number): Promise<void> {
  const rows = await readChanges(w, { table: "patent_legal_status", since: String(since) });
  printLine(`changes in patent_legal_status since load ${since}: ${rows.length}`);
  if (rows.length) {
    printTable(
      rows.slice(0, SHOWN).map((r) => ({
        load: r["load_id"],
        publication_number: r["publication_number"],
        change: r["change"] === "added" ? "added" : r["column_name"],
        old: r["change"] === "added" ? "" : (r["old_value"] ?? "∅"),
        new: r["change"] === "added" ? "" : (r["new_value"] ?? "∅"),
      })),
    );
  }
  if (rows.length > SHOWN) printLine(`… ${rows.length - SHOWN} more`);
  printLine(`all of them: npx skillsync changes patent_legal_status --since ${since}`);
}

/** The biggest price drops between two marketplace loads, from marketplace_price_history. */
async function printPriceDrops(w: Warehouse, before: number, after: number): Promise<void> {
  const { rows } = await readOnlyQuery(
    w,
    `select keyword, asin, previous_price, price,
       round(cast(100 * (price - previous_price) / previous_price as numeric), 1) as change_pct
     from marketplace_price_history
     where load_id = ${Number(after)} and previous_load_id = ${Number(before)}
       and previous_price > 0 and price < previous_price
     order by (price - previous_price) / previous_price, keyword, asin
     limit ${SHOWN}`,
  );
  printLine(`biggest price drops from load ${before} to load ${after} (marketplace_price_history):`);
  if (rows.length) printTable(rows);
  else printLine("  none");
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function registerDemoCommand(program: Command): void {
  program
    .command("demo")
    .description(
      "load demo tables from the local emulator into ./skillsync.db (no real API, no real credits)",
    )
    .option("--db <url>", "warehouse URL (default DATABASE_URL or ./skillsync.db)")
    .option(
      "--changes",
      "load twice a week apart on the emulator's clock, then print legal-status changes and price drops",
    )
    .action(demo);
}
