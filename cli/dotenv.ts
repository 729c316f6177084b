import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { ValidationError } from "../core/errors.js";

/** More than any settings file needs; a bigger `.env` is a mistake (a dump, a binary), not read. */
const MAX_BYTES = 64 * 1024;

/**
 * Reads `.env` from `dir` (the working folder) into `env`, as dlt, Meltano and most CLIs do: each
 * `NAME=value` line sets NAME unless the environment already has it (the shell wins). Returns the
 * names it set — never the values, which are often the API key. A missing file is not an error.
 *
 * @example loadDotEnv(process.cwd()) // ["SKILL_API_KEY", "SKILL_API_BASE_URL"]
 */
export function loadDotEnv(dir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const path = join(dir, ".env");
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_BYTES)
      throw new ValidationError("environment", [
        {
          path: [path],
          message: `is ${bytes.length} bytes, more than a settings file needs (${MAX_BYTES}): move it away or trim it`,
        },
      ]);
    text = bytes.toString("utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "EISDIR")
      return [];
    throw err;
  }
  const set: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}
