import type { Command } from "commander";
import { SheetsConnector } from "../../connectors/sheets/connector.js";
import type { PushMode } from "../../connectors/sheets/push.js";
import { listBuiltinPipelines, loadPipeline } from "../../engine/define/pipeline-file.js";
import { pipelineColumnTypes } from "../../engine/publish/read-table.js";
import { pushFromWarehouse } from "../../engine/publish/sheets-push.js";
import { dbOption, UsageError, withReadDb, withWarehouse } from "../context.js";
import { printJson, printLine } from "../output.js";

interface PushFlags {
  table?: string;
  sql?: string;
  spreadsheet: string;
  tab: string;
  mode: string;
  db?: string;
  readDb?: string;
  json?: boolean;
}

/** `skillsync sheets push`: a table (or a query's rows) into a tab. */
async function sheetsPushCommand(flags: PushFlags): Promise<void> {
  if (!flags.table === !flags.sql) throw new UsageError('give exactly one of --table NAME or --sql "…"');
  if (flags.mode !== "replace" && flags.mode !== "append") {
    throw new UsageError(`--mode must be replace or append, got "${flags.mode}"`);
  }
  const sheets = await SheetsConnector.requireFromEnv();
  const target = { spreadsheet: flags.spreadsheet, tab: flags.tab, mode: flags.mode as PushMode };
  const result = await withWarehouse(
    dbOption(flags),
    (w) => {
      if (flags.sql) return pushFromWarehouse(sheets, w, { sql: flags.sql }, target);
      // Built-in pipelines tell which SQLite integers are booleans and which text is JSON.
      const types = pipelineColumnTypes(listBuiltinPipelines().map((f) => loadPipeline(f))).get(flags.table!);
      return pushFromWarehouse(sheets, w, { table: flags.table!, types }, target);
    },
    { readUrl: flags.readDb },
  );
  if (flags.json) return printJson(result);
  printLine(
    `pushed ${result.rows} row(s) × ${result.columns} column(s) to "${result.tab}" (${result.mode}${result.tabCreated ? ", tab created" : ""}) in ${result.valueRequests} request(s)`,
  );
  if (result.truncatedCells) {
    printLine(`note: ${result.truncatedCells} cell(s) were longer than 50,000 characters and were cut`);
  }
}

/** `skillsync sheets read`: what a range holds as an input list (to check the set-up and sharing). */
async function sheetsReadCommand(flags: {
  spreadsheet: string;
  range: string;
  json?: boolean;
}): Promise<void> {
  const sheets = await SheetsConnector.requireFromEnv();
  const values = await sheets.readList(flags.spreadsheet, flags.range);
  if (flags.json) return printJson(values);
  for (const v of values) printLine(v);
}

export function registerSheetsCommand(program: Command): void {
  const sheets = program
    .command("sheets")
    .description("Google Sheets: push tables to tabs, read ranges (needs GOOGLE_APPLICATION_CREDENTIALS)");
  withReadDb(sheets.command("push"))
    .description("push a warehouse table, or the rows of a query, to a tab")
    .option("--table <name>", "a table or view of the warehouse")
    .option("--sql <query>", "a query of your own (its rows and columns are pushed)")
    .requiredOption("--spreadsheet <id>", "the spreadsheet id (from its URL: /spreadsheets/d/<id>/edit)")
    .requiredOption("--tab <name>", "the tab to write (created if missing)")
    .option(
      "--mode <mode>",
      "replace (the tab holds exactly this table) or append (rows go below)",
      "replace",
    )
    .option("--db <url>", "warehouse (default DATABASE_URL or ./skillsync.db)")
    .option("--json", "print the result as JSON")
    .action(sheetsPushCommand);
  sheets
    .command("read")
    .description("print the non-blank cells of a range, as a pipeline's sheet input would see them")
    .requiredOption("--spreadsheet <id>", "the spreadsheet id")
    .requiredOption("--range <a1>", "an A1 range, e.g. Sheet1!A2:A")
    .option("--json", "print the values as JSON")
    .action(sheetsReadCommand);
}
