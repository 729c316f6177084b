import stringWidth from "string-width";
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

const MAX_CELL = 60;

/** A cell cut to `width` terminal columns, marked `…` when cut, padded to exactly `width`. */
export function fitCell(text: string, width: number): string {
  let out = text;
  if (stringWidth(out) > width) {
    // Cut by characters (not UTF-16 units), so a CJK character or an emoji is never split.
    const chars = [...out];
    while (chars.length && stringWidth(chars.join("")) > width - 1) chars.pop();
    out = `${chars.join("")}…`;
  }
  return out + " ".repeat(Math.max(0, width - stringWidth(out)));
}

/** Prints rows as an aligned text table: widths as the terminal shows them (CJK takes two columns). */
export function printTable(rows: Record<string, unknown>[], columns?: string[]): void {
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) =>
    (v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v)).replace(
      /\r?\n/g,
      " ",
    );
  const widths = cols.map((c) =>
    Math.min(MAX_CELL, Math.max(stringWidth(c), ...rows.map((r) => stringWidth(cell(r[c]))))),
  );
  const fmt = (vals: string[]) =>
    vals
      .map((v, i) => fitCell(v, widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  printLine(fmt(cols));
  printLine(fmt(widths.map((w) => "-".repeat(w))));
  for (const r of rows) printLine(fmt(cols.map((c) => cell(r[c]))));
}

/** Rows as CSV (RFC 4180: quotes around a cell with a comma, quote or line break). */
export function printCsv(rows: Record<string, unknown>[]): void {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const quote = (v: unknown) => {
    const t = v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
    return /[",\r\n]/.test(t) ? `"${t.replaceAll('"', '""')}"` : t;
  };
  printLine(
    [cols.map(quote).join(","), ...rows.map((r) => cols.map((c) => quote(r[c])).join(","))].join("\n"),
  );
}

/** Said once under credits priced by the catalog's guesses rather than a price file (docs/pricing.md). */
export const ESTIMATED_CREDITS =
  "credits are estimated: priced by the catalog, not the account's prices (give them in a price file: --prices; see docs/pricing.md)";
