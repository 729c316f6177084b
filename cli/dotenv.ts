import { join } from "node:path";
import { parseEnv } from "node:util";
import { READ_LIMITS, readBoundedText } from "../core/bounded-read.js";

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
    // A bigger `.env` is a mistake (a dump, a binary, a link to a device), not read.
    text = readBoundedText(path, {
      maxBytes: READ_LIMITS.settingsFileBytes,
      what: "environment",
      instead: "a settings file needs far less; move it away or trim it",
    });
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
