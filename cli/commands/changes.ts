import { type Command, Option } from "commander";
import { readChanges } from "../../engine/publish/changes.js";
import { collect, dbOption, UsageError, withReadDb, withWarehouse } from "../context.js";
import { printCsv, printJson, printLine, printTable } from "../output.js";

interface ChangesFlags {
  db?: string;
  readDb?: string;
  since?: string;
  key?: string[];
  json?: boolean;
  format?: "table" | "csv" | "json";
}

export function registerChangesCommand(program: Command): void {
  withReadDb(program.command("changes"))
    .description(
      "what changed in a history table (records.mode: history): per key, each column old → new, with its load",
    )
    .argument("<table>", "a history table, e.g. patent_legal_status")
    .option("--db <url>", "warehouse URL")
    .option(
      "--since <last|date|load>",
      "last: the changes the table's latest load made; a date (YYYY-MM-DD): changes from then on; a load id: changes made by later loads",
    )
    .option("--key <column=value>", "only this key (repeat for a key of several columns)", collect)
    .option("--json", "print JSON (as --format json)")
    .addOption(new Option("--format <format>", "how to print the changes").choices(["table", "csv", "json"]))
    .action((table: string, flags: ChangesFlags) =>
      withWarehouse(
        dbOption(flags),
        async (w) => {
          const rows = await readChanges(w, { table, since: flags.since, keys: keysOf(flags.key ?? []) });
          const format = flags.format ?? (flags.json ? "json" : "table");
          if (format === "json") return printJson(rows);
          if (format === "csv") return printCsv(rows);
          if (!rows.length) return printLine(`no changes in ${table}${sinceText(flags.since)}`);
          printTable(rows.map(forReading));
          printLine(`${rows.length} change(s)`);
        },
        { existing: true, readUrl: flags.readDb },
      ),
    );
}

function sinceText(since: string | undefined): string {
  if (since === undefined) return "";
  return since === "last" ? " made by its latest load" : ` since ${since}`;
}

function keysOf(flags: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of flags) {
    const at = f.indexOf("=");
    if (at < 1)
      throw new UsageError(`--key "${f}" must be column=value, e.g. --key publication_number=US1234567B2`);
    out[f.slice(0, at)] = f.slice(at + 1);
  }
  return out;
}

/** One change as a person reads it: when, which load, the key, and old → new. */
function forReading(r: Record<string, unknown>): Record<string, unknown> {
  const { change, column_name, old_value, new_value, load_id, changed_at, ...key } = r;
  const at = changed_at instanceof Date ? changed_at.toISOString() : String(changed_at ?? "");
  return {
    changed: at.slice(0, 19).replace("T", " "),
    load: load_id,
    ...key,
    change: change === "added" ? "added" : column_name,
    old: change === "added" ? "" : (old_value ?? "∅"),
    new: change === "added" ? "" : (new_value ?? "∅"),
  };
}
