import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ValidationError } from "../../core/errors.js";
import type { AlertDraft } from "../../store/alerts.js";
import { keysOfWatch, listWatches, type WatchRow } from "../../store/watches.js";
import { readWarehouse } from "../define/warehouse-reads.js";
import { changesView } from "../load/history-views.js";
import { type KeyChange, matchChange } from "../load/watches/match.js";
import { textOf } from "../load/watches/versions.js";
import { changesOfRows, changeViewShape } from "../load/watches/view-watches.js";
import { CHANGE_COLUMN_TYPES, readChanges } from "../publish/changes.js";
import { userTables } from "../publish/read-table.js";

/** A watch by name, or a ValidationError naming the watches there are. */
export async function watchNamed(w: Warehouse, name: string, source: string): Promise<WatchRow> {
  const all = await listWatches(w.db);
  const found = all.find((x) => x.name === name);
  if (found) return found;
  const known = all.length
    ? `; watches: ${all.map((x) => x.name).join(", ")}`
    : "; there is none (skillsync watch add)";
  throw new ValidationError(source, [{ path: ["name"], message: `no watch named "${name}"${known}` }]);
}

/**
 * What a watch would have alerted on for the changes already in its table (since a load or a
 * date; default all of them), read from the `<table>_changes` view. Records and sends nothing
 * (`watch test`); `watch add --backfill` records these. A child row that appeared shows here as its
 * table's row count changing.
 */
export async function wouldAlert(w: Warehouse, watch: WatchRow, since?: string): Promise<AlertDraft[]> {
  const rows = (await userTables(w)).includes(changesView(watch.table))
    ? (await readChanges(w, { table: watch.table, since })).map((r) => ({ r, c: changeOf(r) }))
    : await viewChanges(w, watch.table, since);
  const keys = watch.spec.allKeys ? undefined : new Set(await keysOfWatch(w.db, watch.name));
  const out: AlertDraft[] = [];
  for (const { r, c } of rows) {
    if (keys && !named(c.key, keys)) continue;
    const m = matchChange(watch.spec, c);
    if (!m) continue;
    out.push({
      watch: watch.name,
      table: watch.table,
      key: c.key,
      ...m,
      loadId: Number(r["load_id"]),
      runId: null,
      changedAt: new Date(
        r["changed_at"] instanceof Date ? r["changed_at"] : String(r["changed_at"]),
      ).toISOString(),
      suppressed: false,
    });
  }
  return out;
}

/** A change view's rows after a load (all of them without `since`), as changes. */
async function viewChanges(w: Warehouse, view: string, since?: string) {
  const shape = changeViewShape((await w.adapter.columns(w.db, view)).map((c) => c.name));
  if (!shape) return [];
  if (since !== undefined && !/^\d+$/.test(since))
    throw new ValidationError("--since", [
      {
        path: [],
        message: `a change view's changes are picked by load id (a number), not "${since.slice(0, 40)}"`,
      },
    ]);
  let q = w.db.selectFrom(view).selectAll().orderBy("load_id");
  if (since !== undefined) q = q.where("load_id", ">", Number(since));
  const compiled = q.compile();
  const rows = await readWarehouse(w, compiled.sql, {
    params: compiled.parameters,
    source: `changes of ${view}`,
    maxRows: 500_000,
  });
  return rows.flatMap((r) => {
    const { changes, at } = changesOfRows([r], shape);
    return [...changes.values()]
      .flat()
      .map((c) => ({ r: { load_id: r["load_id"], changed_at: at.get(c.key) }, c }));
  });
}

/** The columns of a `_changes` view that are not the key. */
const VIEW = new Set(Object.keys(CHANGE_COLUMN_TYPES));

function changeOf(r: Record<string, unknown>): KeyChange {
  const keyValues = Object.keys(r)
    .filter((k) => !VIEW.has(k))
    .map((k) => textOf(r[k]));
  return {
    key: keyValues.length === 1 ? (keyValues[0] ?? "") : JSON.stringify(keyValues),
    change: r["change"] === "added" ? "added" : "changed",
    column: textOf(r["column_name"]),
    old: textOf(r["old_value"]),
    new: textOf(r["new_value"]),
  };
}

function named(key: string, keys: ReadonlySet<string>): boolean {
  if (keys.has(key)) return true;
  if (!key.startsWith("[")) return false;
  return (JSON.parse(key) as (string | null)[]).some((v) => v !== null && keys.has(v));
}
