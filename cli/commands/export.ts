import { type Command, Option } from "commander";
import { listBuiltinPipelines, loadPipeline } from "../../engine/define/pipeline-file.js";
import { EXPORT_FORMATS, type ExportRequest, exportRows } from "../../engine/publish/export.js";
import { pipelineColumnTypes } from "../../engine/publish/read-table.js";
import { migrateToLatest } from "../../store/migrate.js";
import { dbOption, UsageError, withReadDb, withWarehouse } from "../context.js";
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
      const format = flags.format;
      const out = flags.out;
      return withWarehouse(
        dbOption(flags),
        async (w) => {
          await migrateToLatest(w);
          const progress = exportProgress();
          const abort = new AbortController();
          const onSignal = () => abort.abort();
          process.once("SIGINT", onSignal);
          try {
            const results = await exportRows(w, {
              tables,
              sql: flags.sql,
              format,
              out,
              sinceLast: flags.sinceLast === true,
              // Built-in pipelines tell which SQLite integers are booleans and which text is dates or JSON.
              types: pipelineColumnTypes(listBuiltinPipelines().map((f) => loadPipeline(f))),
              onProgress: progress.update,
              signal: abort.signal,
            });
            progress.stop();
            if (flags.json) return printJson(results);
            for (const r of results) {
              if (r.written) printLine(`${r.source}: ${r.rows} row(s) → ${r.file}${sinceText(r.afterLoad)}`);
              else
                printLine(
                  `${r.source}: nothing new since load ${r.afterLoad ?? 0} (the previous export); ${r.file} left as it was`,
                );
            }
          } finally {
            progress.stop();
            process.off("SIGINT", onSignal);
          }
        },
        { existing: true, readUrl: flags.readDb },
      );
    });
}

const sinceText = (after: number | null) => (after === null ? "" : ` (loads after ${after})`);
