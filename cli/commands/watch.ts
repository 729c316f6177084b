import type { Command } from "commander";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import {
  backfillWatch,
  defineWatch,
  readWatchFile,
  removeWatch,
  watchFilePath,
  watchNamed,
  watchWarnings,
  wouldAlert,
} from "../../engine/watch/index.js";
import { migrateToLatest } from "../../store/migrate.js";
import { listWatches, type WatchRow } from "../../store/watches.js";
import { collect, dbOption, withWarehouse } from "../context.js";
import { logNote } from "../log.js";
import { printJson, printLine, printTable } from "../output.js";
import { type WatchAddFlags, watchFileOfFlags } from "../watch-flags.js";

interface Common {
  db?: string;
  json?: boolean;
}

export function registerWatchCommand(program: Command): void {
  const watch = program
    .command("watch")
    .description("say what to watch in a history table and be told when it moves (docs/alerts.md)");
  registerAdd(watch);
  watch
    .command("list")
    .description("the watches, with their table, condition, keys and where they send")
    .option("--db <url>", "warehouse URL")
    .option("--json", "print JSON")
    .action((f: Common) =>
      withWarehouse(dbOption(f), async (w) => printWatches(await listWatches(w.db), f.json), {
        existing: true,
      }),
    );
  watch
    .command("rm")
    .description("remove a watch (its alerts stay)")
    .argument("<name>")
    .option("--db <url>", "warehouse URL")
    .action((name: string, f: Common) =>
      withWarehouse(
        dbOption(f),
        async (w) => {
          await removeWatch(w, name, "watch rm");
          printLine(`watch ${name} removed`);
        },
        { existing: true },
      ),
    );
  registerTest(watch);
}

function registerAdd(watch: Command): void {
  watch
    .command("add")
    .description("make a watch from flags, or from watches/NAME.yaml when no --table is given")
    .argument("<name>", "the watch's name (a-z, 0-9, _ and -)")
    .option("--table <table>", "a history table, e.g. patent_legal_status")
    .option("--keys <keys>", "@FILE (one key per line) or K1,K2,…; default: every key")
    .option("--keys-sql <sql>", "a query whose first column lists the keys (run once, now, read-only)")
    .option("--column <column>", "a column or child table to watch (repeat); default: all", collect)
    .option("--to <value>", "only changes to this value")
    .option("--from <value>", "only changes from this value")
    .option("--fell-by <amount>", "only falls of at least N% or N")
    .option("--rose-by <amount>", "only rises of at least N% or N")
    .option("--appeared", "a key's first version, or a child row added (a new family member)")
    .option("--notify <url>", "webhook: env:NAME (the variable holds the URL) or the URL")
    .option("--email <address>", "e-mail the alerts (repeat; needs SKILLSYNC_SMTP_URL)", collect)
    .option("--digest <when>", "load (default): one message per load; day; none: one per alert")
    .option("--cooldown <duration>", "at most one alert per key within this time, e.g. 7d")
    .option("--backfill", "also alert on the changes already loaded")
    .option("--file <path>", "the watch file (default watches/NAME.yaml when no --table)")
    .option("--db <url>", "warehouse URL")
    .option("--json", "print the watch as JSON")
    .action((name: string, f: WatchAddFlags & Common & { backfill?: boolean; file?: string }) => {
      const fromFile = f.table === undefined;
      const path = f.file ?? watchFilePath(name);
      const file = fromFile ? readWatchFile(path) : watchFileOfFlags(f);
      const source = fromFile ? `watch file ${path}` : "watch add";
      return withWarehouse(dbOption(f), async (w) => {
        await migrateToLatest(w);
        const made = await defineWatch(w, name, file, { source, file: fromFile ? path : undefined });
        await afterAdd(w, made, f);
      });
    });
}

async function afterAdd(w: Warehouse, made: WatchRow, f: Common & { backfill?: boolean }): Promise<void> {
  const backfilled = f.backfill ? await backfillWatch(w, made) : 0;
  for (const warning of await watchWarnings(made.spec)) logNote(`warning: ${warning}`, "watch.warning");
  if (f.json) return printJson({ ...made, backfilled });
  const keys = made.spec.allKeys ? "every key" : `${made.keys} key(s)`;
  printLine(`watch ${made.name} made on ${made.table} (${keys}): it sees changes loaded from now on`);
  if (f.backfill) printLine(`${backfilled} alert(s) from changes already loaded`);
}

function registerTest(watch: Command): void {
  watch
    .command("test")
    .description("what a watch would have alerted on for changes already loaded; sends nothing")
    .argument("<name>")
    .option("--since <load|date>", "a load id (changes of later loads) or a date (YYYY-MM-DD)")
    .option("--db <url>", "warehouse URL")
    .option("--json", "print JSON")
    .action((name: string, f: Common & { since?: string }) =>
      withWarehouse(
        dbOption(f),
        async (w) => {
          const drafts = await wouldAlert(w, await watchNamed(w, name, "watch test"), f.since);
          if (f.json) return printJson(drafts.map(({ suppressed: _s, runId: _r, ...d }) => d));
          if (!drafts.length)
            return printLine(`watch ${name} would have sent nothing${f.since ? ` since ${f.since}` : ""}`);
          printTable(
            drafts.map((d) => ({
              load: d.loadId,
              key: d.key,
              change: d.change,
              column: d.column ?? "",
              old: d.old ?? "",
              new: d.new ?? "",
            })),
          );
          printLine(`${drafts.length} alert(s) it would have sent; nothing was sent`);
        },
        { existing: true },
      ),
    );
}

function printWatches(rows: readonly WatchRow[], json: boolean | undefined): void {
  if (json) printJson(rows);
  else if (!rows.length) printLine("no watches (skillsync watch add NAME --table TABLE …)");
  else
    printTable(
      rows.map((r) => ({
        name: r.name,
        table: r.table,
        keys: r.spec.allKeys ? "all" : r.keys,
        columns: r.spec.columns?.join(", ") ?? "all",
        when: whenText(r.spec.when),
        sends: sendsText(r.spec.notify),
      })),
    );
}

function whenText(when: WatchRow["spec"]["when"]): string {
  const parts = [
    when.from !== undefined ? `from ${when.from}` : "",
    when.to !== undefined ? `to ${when.to}` : "",
    when.fellBy ? `fell by ${when.fellBy.value}${when.fellBy.percent ? "%" : ""}` : "",
    when.roseBy ? `rose by ${when.roseBy.value}${when.roseBy.percent ? "%" : ""}` : "",
    when.appeared ? "appeared" : "",
  ].filter(Boolean);
  return parts.join(", ") || "any change";
}

function sendsText(n: WatchRow["spec"]["notify"]): string {
  const to = [
    n.url?.startsWith("env:") ? `webhook ${n.url}` : n.url ? "webhook (hash)" : "",
    ...n.email,
  ].filter(Boolean);
  return to.length
    ? `${to.join(", ")} (${n.digest === "none" ? "each" : `digest per ${n.digest}`})`
    : "recorded only";
}
