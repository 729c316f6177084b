import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { ReadMeasure } from "../../connectors/warehouse/read-cap.js";
import { readWarehouse } from "../define/warehouse-reads.js";
import { type Truncation, truncationOf } from "./answer-bounds.js";

export interface QueryResult {
  rows: Record<string, unknown>[];
  /** True when the query returned more rows than `maxRows` (or than `maxBytes` holds) and the rest were dropped. */
  truncated: boolean;
  /** With `maxBytes` or `maxCellBytes`: why the rows stopped, and the cells cut. */
  truncation?: Truncation;
}

/**
 * A person's or an agent's SQL (`skillsync sql`, the MCP `query` tool), through the one read-only
 * path (connectors/warehouse/read-only.ts): one statement, a read, within its time limit. With
 * `maxRows`, a longer result is cut and says so instead of failing.
 *
 * @example const { rows, truncated } = await readOnlyQuery(w, "select count(*) as n from t", { maxRows: 100 });
 */
export async function readOnlyQuery(
  w: Warehouse,
  text: string,
  o: {
    maxRows?: number | undefined;
    timeoutMs?: number | undefined;
    /** Bounds in bytes (answer-bounds.ts): reading stops at `maxBytes`, longer cells are cut. */
    maxBytes?: number | undefined;
    maxCellBytes?: number | undefined;
  } = {},
): Promise<QueryResult> {
  let measure: ReadMeasure | undefined;
  const bounded = o.maxBytes !== undefined || o.maxCellBytes !== undefined;
  const rows = await readWarehouse(w, text, {
    ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
    ...(o.maxRows === undefined ? {} : { cutAt: o.maxRows }),
    ...(bounded
      ? { maxBytes: o.maxBytes, maxCellBytes: o.maxCellBytes, onMeasure: (m) => (measure = m) }
      : {}),
  });
  const max = o.maxRows ?? Number.POSITIVE_INFINITY;
  const byRows = rows.length > max;
  const cut = {
    rows: byRows ? rows.slice(0, max) : rows,
    truncated: byRows || measure?.stoppedBy === "bytes",
  };
  return bounded ? { ...cut, truncation: truncationOf(measure) } : cut;
}
