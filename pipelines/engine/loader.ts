import { type Kysely, sql } from "kysely";
import type { WarehouseAdapter } from "../../connectors/warehouse/adapter.js";
import type { AnyDB } from "../../connectors/warehouse/open.js";
import type { TableDef } from "../../connectors/warehouse/types.js";
import type { Row } from "./mapping.js";

type Mode = "append" | "replace" | "merge";

function bindRows(adapter: WarehouseAdapter, def: TableDef, rows: Row[]): Row[] {
  return rows.map((r) => {
    const out: Row = {};
    for (const c of def.columns) out[c.name] = adapter.bind(r[c.name], c.type);
    return out;
  });
}

/** Last row wins for a key seen twice in one batch (one upsert statement cannot touch a row twice). */
export function dedupeByKey(rows: Row[], key: string[]): Row[] {
  if (!key.length) return rows;
  const byKey = new Map<string, Row>();
  for (const r of rows) byKey.set(JSON.stringify(key.map((k) => r[k])), r);
  return [...byKey.values()];
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Writes typed rows into a table inside the caller's transaction: `merge` upserts on the key,
 * `append` and `replace` insert (replace drops other runs' rows when the run ends).
 */
export async function writeRows(
  trx: Kysely<AnyDB>,
  adapter: WarehouseAdapter,
  def: TableDef,
  rows: Row[],
  mode: Mode,
): Promise<number> {
  if (!rows.length) return 0;
  const upsert = mode !== "append" && def.key.length > 0 && def.unique !== false;
  const list = upsert ? dedupeByKey(rows, def.key) : rows;
  const bound = bindRows(adapter, def, list);
  const perStatement = Math.max(1, Math.floor(adapter.maxParams / def.columns.length));
  const updatable = def.columns.map((c) => c.name).filter((c) => !def.key.includes(c));
  for (const part of chunks(bound, perStatement)) {
    const insert = trx.insertInto(def.name).values(part);
    if (upsert) {
      await insert
        .onConflict((oc) =>
          oc
            .columns(def.key)
            .doUpdateSet(Object.fromEntries(updatable.map((c) => [c, sql.ref(`excluded.${c}`)]))),
        )
        .execute();
    } else {
      await insert.execute();
    }
  }
  return list.length;
}

/** Removes the children of the parents about to be merged, so a merge replaces each parent's child rows. */
export async function deleteChildren(
  trx: Kysely<AnyDB>,
  child: TableDef,
  parentKey: string[],
  parents: Row[],
  adapter: WarehouseAdapter,
): Promise<void> {
  if (!parentKey.length || !parents.length) return;
  const keyTypes = parentKey.map((k) => child.columns.find((c) => c.name === k)?.type ?? "text");
  const perStatement = Math.max(1, Math.floor(adapter.maxParams / parentKey.length / 2));
  for (const part of chunks(parents, perStatement)) {
    await trx
      .deleteFrom(child.name)
      .where((eb) =>
        eb.or(
          part.map((p) =>
            eb.and(parentKey.map((k, i) => eb(k, "=", adapter.bind(p[k], keyTypes[i]!) as never))),
          ),
        ),
      )
      .execute();
  }
}

/** `replace` mode: when a run has loaded all its pages, rows of earlier runs go. */
export async function dropOtherRuns(trx: Kysely<AnyDB>, table: string, runId: string): Promise<void> {
  await trx.deleteFrom(table).where("run_id", "<>", runId).execute();
}
