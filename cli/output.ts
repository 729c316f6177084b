import { SkillsyncError } from "../core/errors.js";
import { redact } from "../core/redact.js";

/** Prints an error in one or two lines (what and where); the stack only with --verbose. Secrets are redacted. */
export function printError(err: unknown, verbose: boolean): void {
  const text =
    err instanceof SkillsyncError
      ? `skillsync: ${err.message}`
      : `skillsync: ${err instanceof Error ? err.message : String(err)}`;
  process.stderr.write(`${redact(text)}\n`);
  if (verbose && err instanceof Error && err.stack) process.stderr.write(`${redact(err.stack)}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${redact(JSON.stringify(value, null, 2))}\n`);
}

export function printLine(text: string): void {
  process.stdout.write(`${redact(text)}\n`);
}

/** Prints rows as an aligned text table. */
export function printTable(rows: Record<string, unknown>[], columns?: string[]): void {
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) =>
    v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
  const widths = cols.map((c) => Math.min(60, Math.max(c.length, ...rows.map((r) => cell(r[c]).length))));
  const fmt = (vals: string[]) =>
    vals
      .map((v, i) => v.slice(0, widths[i]).padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  printLine(fmt(cols));
  printLine(fmt(widths.map((w) => "-".repeat(w))));
  for (const r of rows) printLine(fmt(cols.map((c) => cell(r[c]))));
}
