import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Where the suite keeps everything it produces (SQLite warehouses, logs, files the tool wrote,
 * figures), so the global teardown can scan it all for secrets and sum the figures. The global
 * setup creates it and passes it on in the environment; a file run on its own gets its own.
 */
function fromEnv(name: string, make: () => string): string {
  const value = process.env[name] ?? make();
  process.env[name] = value;
  return value;
}

const SUITE_DIR = fromEnv("SKILLSYNC_RELIABILITY_DIR", () =>
  mkdtempSync(join(tmpdir(), "skillsync-reliability-")),
);
/** Postgres schemas of this suite start with `rel_<tag>_`. */
export const SUITE_TAG = fromEnv("SKILLSYNC_RELIABILITY_TAG", () => randomBytes(3).toString("hex"));

export const suitePath = (...parts: string[]): string => join(SUITE_DIR, ...parts);

for (const d of ["db", "logs", "figures", "files"]) mkdirSync(suitePath(d), { recursive: true });

let figureCount = 0;

/** Adds figures of one area (numbers are summed over the suite; lists are concatenated). */
export function addFigures(area: string, figures: Record<string, number | string[]>): void {
  figureCount += 1;
  writeFileSync(
    suitePath("figures", `${area}-${process.pid}-${figureCount}.json`),
    JSON.stringify({ area, figures }),
  );
}

/** Keeps text the tool printed or answered (CLI output, server logs, error messages) for the secret scan. */
export function keepOutput(name: string, text: string): void {
  if (text) appendFileSync(suitePath("logs", `${name}-${process.pid}.log`), `${text}\n`);
}

/** A folder for files a test hands to the tool or lets it write (scanned at the end). */
export function filesDir(name: string): string {
  const dir = suitePath("files", `${name}-${randomBytes(4).toString("hex")}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
