import { SkillClient } from "../connectors/skill-api/client.js";
import { openWarehouse, type Warehouse } from "../connectors/warehouse/open.js";
import { ValidationError } from "../core/errors.js";
import { readValues } from "../pipelines/engine/inputs.js";
import { parseParamFlags } from "../pipelines/engine/params.js";

/** Commander collector for repeatable flags. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

export function dbOption(opts: { db?: string | undefined }): string | undefined {
  return opts.db ?? process.env["DATABASE_URL"];
}

/** Opens the warehouse for a command and always closes it. */
export async function withWarehouse<T>(
  url: string | undefined,
  fn: (w: Warehouse) => Promise<T>,
): Promise<T> {
  const w = await openWarehouse(url);
  try {
    return await fn(w);
  } finally {
    await w.close();
  }
}

/**
 * `--param name=value` flags; `name=@file.txt` reads one value per line and `name=@file.csv#column`
 * a CSV column (the user's own files, on the command line only: the server never reads files).
 */
export function paramsFromFlags(flags: string[] = []): Record<string, string[]> {
  const raw = parseParamFlags(flags);
  for (const [name, values] of Object.entries(raw)) {
    raw[name] = values.flatMap((v) => {
      if (!v.startsWith("@")) return [v];
      const [file, column] = v.slice(1).split("#");
      return readValues(file!, column, `--param ${name}`);
    });
  }
  return raw;
}

export function makeClient(baseUrl?: string): SkillClient {
  return new SkillClient({ baseUrl });
}

/** Parses a non-negative number flag or throws a usage error naming the flag. */
export function numberFlag(
  name: string,
  value: string | undefined,
  opts: { integer?: boolean; min?: number } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  const bad = !Number.isFinite(n) || (opts.integer && !Number.isInteger(n)) || n < (opts.min ?? 0);
  if (bad)
    throw new UsageError(
      `${name} must be ${opts.integer ? "a whole number" : "a number"} >= ${opts.min ?? 0}, got "${value}"`,
    );
  return n;
}

export class UsageError extends ValidationError {
  constructor(message: string) {
    super("command line", [{ path: [], message }]);
  }
}
