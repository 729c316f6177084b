import type { Command } from "commander";
import { SkillClient } from "../connectors/skill-api/client.js";
import { openWarehouse, type Warehouse } from "../connectors/warehouse/open.js";
import { READ_LIMITS, tooManyValues } from "../core/bounded-read.js";
import { readConfig } from "../core/env-config.js";
import { ValidationError } from "../core/errors.js";
import { readValues } from "../engine/define/inputs.js";
import { parseParamFlags } from "../engine/define/params.js";
import { loadPrices, type PriceTable } from "../engine/define/prices.js";
import { mustBeWarehouse } from "../store/migrate.js";
import { logNote } from "./log.js";

/** Commander collector for repeatable flags. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

export function dbOption(opts: { db?: string | undefined }): string | undefined {
  return opts.db ?? readConfig().databaseUrl;
}

/**
 * `--read-db` on every command with a read path (SQL typed or in a pipeline file, table views,
 * MCP): on Postgres they log in as this reader instead of the role `skillsync migrate` makes.
 */
export function withReadDb(cmd: Command): Command {
  return cmd.option(
    "--read-db <url>",
    "Postgres: read paths log in as this reader login (default SKILLSYNC_READ_DATABASE_URL; docs/read-only.md)",
  );
}

/**
 * Opens the warehouse for a command and always closes it. `existing`: the command only reads, so
 * a warehouse that is not there — no file, or a database without our tables — is an error (exit
 * 2), never created. `readOnly`: the command
 * changes nothing, and a warehouse that is not there reads as an empty one (`plan`).
 */
export async function withWarehouse<T>(
  url: string | undefined,
  fn: (w: Warehouse) => Promise<T>,
  o: { existing?: boolean; readOnly?: boolean; readUrl?: string | undefined } = {},
): Promise<T> {
  const w = await openWarehouse(url, o);
  try {
    if (o.existing) await mustBeWarehouse(w);
    return await fn(w);
  } finally {
    await w.close();
  }
}

/**
 * `--param name=value` flags; `name=@file.txt` reads one value per line and `name=@file.csv#column`
 * a CSV column (the user's own files, on the command line only: the server never reads files),
 * each within READ_LIMITS.
 */
export function paramsFromFlags(flags: string[] = []): Record<string, string[]> {
  const raw = parseParamFlags(flags);
  for (const [name, values] of Object.entries(raw)) {
    raw[name] = values.flatMap((v) => {
      if (!v.startsWith("@")) return [v];
      const [file, column] = v.slice(1).split("#");
      return readValues(file!, column, `--param ${name}`, (text) => logNote(text, "input.note"));
    });
    // Each file is bounded by itself; several files of one param are bounded together.
    if (raw[name]!.length > READ_LIMITS.values)
      throw tooManyValues(
        `--param ${name}`,
        "its values together",
        "give fewer files, or run them one by one",
      );
  }
  return raw;
}

/** The API client of a command that sends calls: `--base-url`, and `--rate`/`--rate-limit-timeout` where it takes them. */
export function makeClient(
  baseUrl?: string,
  rate: { rate?: number; rateLimitTimeoutMs?: number } = {},
): SkillClient {
  return new SkillClient({ baseUrl, ...rate });
}

/** Parses a non-negative number flag or throws a usage error naming the flag. */
export function numberFlag(
  name: string,
  value: string | undefined,
  opts: { integer?: boolean; min?: number; max?: number; note?: string } = {},
): number | undefined {
  if (value === undefined) return undefined;
  // Decimal digits only: Number() reads "" and " " as 0 and "0x10" as 16, "1e3" as 1000.
  const text = value.trim();
  const n = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(text) && text.length <= 20 ? Number(text) : Number.NaN;
  const min = opts.min ?? 0;
  const max = opts.max ?? Number.POSITIVE_INFINITY;
  const bad = !Number.isFinite(n) || (opts.integer && !Number.isInteger(n)) || n < min || n > max;
  if (bad) {
    const range = max === Number.POSITIVE_INFINITY ? `>= ${min}` : `from ${min} to ${max}`;
    const note = opts.note ? ` (${opts.note})` : "";
    throw new UsageError(
      `${name} must be ${opts.integer ? "a whole number" : "a number"} ${range}${note}, got "${value}"`,
    );
  }
  return n;
}

/**
 * A port flag: a whole number up to 65535, 0 (any free port) where the command can say which it
 * took. Beyond that Node would throw its own RangeError, exit 1.
 */
export function portFlag(
  name: string,
  value: string | undefined,
  o: { anyFree: boolean },
): number | undefined {
  return o.anyFree
    ? numberFlag(name, value, { integer: true, min: 0, max: 65535, note: "0: any free port" })
    : numberFlag(name, value, { integer: true, min: 1, max: 65535 });
}

export class UsageError extends ValidationError {
  constructor(message: string) {
    super("command line", [{ path: [], message }]);
  }
}

/**
 * The price table of every command that runs pipelines (run, plan, schedule, serve, reports retry):
 * `--prices FILE`, else SKILLSYNC_PRICES, else the catalog's prices.
 */
export function pricesOption(file: string | undefined): PriceTable {
  return loadPrices(file ?? readConfig().prices);
}
