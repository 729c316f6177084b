import type { ReadMeasure } from "../../connectors/warehouse/read-cap.js";

/**
 * The most one answer that carries rows to a reader elsewhere — an MCP `query`, `describe_table`'s
 * example row, a page of the server's `GET /tables/:name` — holds: its rows as JSON, and each cell.
 * Reading stops at the first and cuts at the second as rows stream in (connectors/warehouse/read-cap.ts),
 * so neither the answer nor the process that builds it grows with what a statement could return.
 */
export const ANSWER_MAX_BYTES = 1_048_576;
export const CELL_MAX_BYTES = 65_536;

/** The bounds every such answer reads with. */
export const ANSWER_BOUNDS = { maxBytes: ANSWER_MAX_BYTES, maxCellBytes: CELL_MAX_BYTES } as const;

/** How an answer was bounded: why its rows stopped (if they did) and how many cells were cut. */
export interface Truncation {
  /** `rows`: at the row limit asked for; `bytes`: at ANSWER_MAX_BYTES. Undefined: every row came. */
  truncatedBy: "rows" | "bytes" | undefined;
  cellsCut: number;
}

/** What a read's measure says, as an answer reports it. */
export function truncationOf(m: ReadMeasure | undefined): Truncation {
  return { truncatedBy: m?.stoppedBy, cellsCut: m?.cellsCut ?? 0 };
}

const bytesText = (n: number) => `${n.toLocaleString("en-US")} bytes`;

/** Notes that tell a reader what was left out and how to get it, or none. */
export function truncationNotes(t: Truncation, rowLimit: number | undefined, more: string): string[] {
  const notes: string[] = [];
  if (t.truncatedBy === "rows" && rowLimit !== undefined) notes.push(`cut at ${rowLimit} rows: ${more}`);
  if (t.truncatedBy === "bytes") {
    notes.push(
      `stopped before ${bytesText(ANSWER_MAX_BYTES)} of rows (as JSON), the most one answer carries: select fewer or narrower columns, aggregate, or page with LIMIT/OFFSET`,
    );
  }
  if (t.cellsCut > 0) {
    notes.push(
      `${t.cellsCut} cell(s) longer than ${bytesText(CELL_MAX_BYTES)} were cut: each ends with "…[cut: first K of N bytes]" (", base64]" for a blob); read the rest in pieces with substr()`,
    );
  }
  return notes;
}
