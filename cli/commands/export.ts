import { constants } from "node:os";
import { type Command, Option } from "commander";
import { removeTempFilesNow } from "../../connectors/files/temp-files.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { listBuiltinPipelines, loadPipeline } from "../../engine/define/pipeline-file.js";
import {
  EXPORT_FORMATS,
  type ExportOutcome,
  type ExportRequest,
  exportRows,
} from "../../engine/publish/export.js";
import { pipelineColumnTypes } from "../../engine/publish/read-table.js";
import { migrateToLatest } from "../../store/migrate.js";
import { dbOption, UsageError, withReadDb, withWarehouse } from "../context.js";
import { logNote } from "../log.js";
import { printJson, printLine } from "../output.js";
import { exportProgress } from "../progress.js";

interface ExportFlags {
  db?: string;
  readDb?: string;
  sql?: string;
  format?: ExportRequest["format"];
  out?: string;
  sinceLast?: boolean;
  json?: boolean;
}

export function registerExportCommand(program: Command): void {
  withReadDb(program.command("export"))
    .description(
      "write tables (or one query's rows) to Parquet, CSV or JSON Lines files, streaming; --since-last: only rows of newer loads",
    )
    .argument("[tables...]", "tables to export, each to its own file (skillsync tables lists them)")
    .option("--sql <query>", "export one read-only query's rows instead of tables")
    .addOption(new Option("--format <format>", "file format").choices(EXPORT_FORMATS))
    .option(
      "--out <path>",
      "the file to write (one table or --sql), or an existing folder (<table>.<format> each)",
    )
    .option(
      "--since-last",
      "only rows of loads after the previous export of the same table/query to the same --out",
    )
    .option("--db <url>", "warehouse URL")
    .option("--json", "print what was written as JSON")
    .action((tables: string[], flags: ExportFlags) => {
      if (!flags.format) throw new UsageError(`--format is required: ${EXPORT_FORMATS.join(", ")}`);
      if (flags.out === undefined) {
        throw new UsageError(
          "--out is required: the file to write (or, for several tables, an existing folder)",
        );
      }
      if (flags.sql !== undefined && tables.length) {
        throw new UsageError("give tables or --sql, not both");
      }
      const request = { tables, sql: flags.sql, format: flags.format, out: flags.out };
      return withWarehouse(dbOption(flags), (w) => exportAndPrint(w, request, flags), {
        existing: true,
        readUrl: flags.readDb,
      });
    });
}

async function exportAndPrint(
  w: Warehouse,
  request: Pick<ExportRequest, "tables" | "sql" | "format" | "out">,
  flags: ExportFlags,
): Promise<void> {
  await migrateToLatest(w);
  const progress = exportProgress();
  const stop = stopOnSignals();
  try {
    const results = await exportRows(w, {
      ...request,
      sinceLast: flags.sinceLast === true,
      // Built-in pipelines tell which SQLite integers are booleans and which text is dates or JSON.
      types: pipelineColumnTypes(listBuiltinPipelines().map((f) => loadPipeline(f))),
      onProgress: progress.update,
      signal: stop.signal,
      onSwept: (dir, names) =>
        logNote(
          `skillsync: removed ${names.length} temporary file(s) of earlier exports that were killed from ${dir}: ${names.join(", ")}`,
        ),
    });
    progress.stop();
    printResults(results, flags.json === true);
  } catch (err) {
    const received = stop.received();
    if (received === undefined) throw err;
    progress.stop();
    // Stopped by a signal, the temporary file removed: the exit code a shell expects of it.
    process.stderr.write(`skillsync: ${err instanceof Error ? err.message : String(err)} (${received})\n`);
    process.exitCode = signalExitCode(received);
  } finally {
    progress.stop();
    stop.dispose();
  }
}

function printResults(results: ExportOutcome[], json: boolean): void {
  if (json) {
    printJson(results);
    return;
  }
  for (const r of results) {
    if (r.written) printLine(`${r.source}: ${r.rows} row(s) → ${r.file}${sinceText(r.afterLoad)}`);
    else
      printLine(
        `${r.source}: nothing new since load ${r.afterLoad ?? 0} (the previous export); ${r.file} left as it was`,
      );
  }
}

/**
 * SIGINT and SIGTERM stop the export at its next batch, which removes its temporary file; a second
 * one removes it at once and quits.
 */
function stopOnSignals() {
  const abort = new AbortController();
  let received: NodeJS.Signals | undefined;
  const on = (name: NodeJS.Signals) => {
    if (received !== undefined) {
      removeTempFilesNow();
      process.exit(signalExitCode(name));
    }
    received = name;
    logNote(`skillsync: stopping the export (${name}); its temporary file is removed (again to quit now)`);
    abort.abort();
  };
  process.on("SIGINT", on);
  process.on("SIGTERM", on);
  return {
    signal: abort.signal,
    received: () => received,
    dispose: () => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
    },
  };
}

/** 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM. */
const signalExitCode = (name: NodeJS.Signals): number => 128 + constants.signals[name];

const sinceText = (after: number | null) => (after === null ? "" : ` (loads after ${after})`);
