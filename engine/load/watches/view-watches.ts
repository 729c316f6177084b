import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { watchSettings } from "../../../store/watches.js";
import { readWarehouse } from "../../define/warehouse-reads.js";
import { byCondition, interestedWatches } from "./candidates.js";
import { type LoadOf, recordMatches } from "./evaluate.js";
import type { KeyChange } from "./match.js";
import { textOf } from "./versions.js";

/** The most rows of a change view one load's end reads. */
const MAX_VIEW_ROWS = 500_000;

/** A change view's parts: its key, and the columns it pairs with `previous_<column>`. */
export interface ChangeViewShape {
  key: string[];
  pairs: string[];
}

/**
 * Whether a table or view says what changed per load — a `load_id` column, and `previous_<c>`
 * beside `<c>` (as `marketplace_price_history` has for price and rank) — and its key: the other
 * columns but times (`…_at`).
 */
export function changeViewShape(columns: readonly string[]): ChangeViewShape | undefined {
  if (!columns.includes("load_id")) return undefined;
  const pairs = columns.filter((c) => c !== "load_id" && columns.includes(`previous_${c}`));
  if (!pairs.length) return undefined;
  const key = columns.filter(
    (c) => c !== "load_id" && !pairs.includes(c) && !c.startsWith("previous_") && !c.endsWith("_at"),
  );
  return key.length ? { key, pairs } : undefined;
}

/**
 * Where a load ends: the watches of the change views its pipeline declares see the rows of this
 * load (read through the read-only path), each paired value that moved being a change, and a key
 * no earlier load saw (`previous_load_id` null) its first appearance. Recorded once per (watch,
 * key, column, load) whoever ends the load and however often.
 */
export async function alertOnViews(w: Warehouse, views: readonly string[], load: LoadOf): Promise<number> {
  let recorded = 0;
  for (const view of views) {
    const watches = await watchSettings(w.db, view);
    if (!watches.length) continue;
    const shape = changeViewShape((await w.adapter.columns(w.db, view)).map((c) => c.name));
    if (!shape) continue;
    const q = w.db.selectFrom(view).selectAll().where("load_id", "=", load.loadId).compile();
    const rows = await readWarehouse(w, q.sql, {
      params: q.parameters,
      source: `changes of ${view}`,
      maxRows: MAX_VIEW_ROWS,
    });
    const changed = changesOfRows(rows, shape);
    const interested = await interestedWatches(
      w.db,
      byCondition(watches, changed.changes),
      shape.key.length > 1,
    );
    if (!interested.size) continue;
    recorded += await w.transaction((tx) =>
      recordMatches(tx.db, view, watches, { ...changed, interested }, load),
    );
  }
  return recorded;
}

/** A change view's rows as changes per key (and when each key's row was seen). */
export function changesOfRows(rows: readonly Record<string, unknown>[], shape: ChangeViewShape) {
  const changes = new Map<string, KeyChange[]>();
  const at = new Map<string, string>();
  for (const r of rows) {
    const values = shape.key.map((k) => textOf(r[k]));
    const key = values.length === 1 ? (values[0] ?? "") : JSON.stringify(values);
    at.set(key, textOf(Object.entries(r).find(([k]) => k.endsWith("_at"))?.[1]) ?? new Date().toISOString());
    const first =
      "previous_load_id" in r
        ? r["previous_load_id"] === null
        : shape.pairs.every((p) => r[`previous_${p}`] === null);
    const list: KeyChange[] = first
      ? [{ key, change: "added", column: null, old: null, new: null }]
      : shape.pairs.flatMap((p) => {
          const old = textOf(r[`previous_${p}`]);
          const now = textOf(r[p]);
          return old === now ? [] : [{ key, change: "changed" as const, column: p, old, new: now }];
        });
    changes.set(key, [...(changes.get(key) ?? []), ...list]);
  }
  return { changes, at };
}
