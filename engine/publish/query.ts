import type { Warehouse } from "../../connectors/warehouse/open.js";
import { readOnly } from "../../connectors/warehouse/read-only.js";

export interface QueryResult {
  rows: Record<string, unknown>[];
  /** True when the query returned more rows than `maxRows` and the rest were dropped. */
  truncated: boolean;
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
  o: { maxRows?: number | undefined; timeoutMs?: number | undefined } = {},
): Promise<QueryResult> {
  const rows = await readOnly(w, text, {
    ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
    ...(o.maxRows === undefined ? {} : { cutAt: o.maxRows }),
  });
  const max = o.maxRows ?? Number.POSITIVE_INFINITY;
  return { rows: rows.length > max ? rows.slice(0, max) : rows, truncated: rows.length > max };
}
