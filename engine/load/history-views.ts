import { ident } from "../../connectors/warehouse/bulk.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { TableDef } from "../../schema/table.js";
import { CHILDREN_HASH, type CompiledMapping } from "../normalize/mapping.js";
import { ensureView, type ViewText } from "./ensure-views.js";
import { contentColumns } from "./history.js";

/** The view of a history table's current versions: one row per key. */
const currentView = (table: string): string => `${table}_current`;
/** The view of what changed in a history table, per key and column. */
export const changesView = (table: string): string => `${table}_changes`;

/**
 * The views a `history` table comes with: `<table>_current` for the parent and each child, and
 * `<table>_changes` for the parent — per key, each column whose value a new version changed (old →
 * new, as text), a row per child table whose rows changed (their counts), and an `added` row for a
 * key's first version. Names are the pipeline's identifiers, quoted; no value is written into SQL.
 */
export async function ensureHistoryViews(w: Warehouse, m: CompiledMapping): Promise<void> {
  if (m.mode !== "history") return;
  for (const def of [m.table, ...m.children]) {
    const cols = def.columns.filter((c) => c.name !== "valid_to").map((c) => ident(c.name));
    await ensureView(
      w,
      currentView(def.name),
      `select ${cols.join(", ")} from ${ident(def.name)} where valid_to is null`,
      {
        view: `The current version of each row of ${def.name} (its rows whose valid_to is null): same columns but valid_to.`,
        columns: described(def),
        computed: (c) => `${def.name}'s ${c}.`,
      },
    );
  }
  await ensureView(w, changesView(m.table.name), changesSql(m), changesText(m.table));
}

/** A table's columns' descriptions, by name. */
function described(def: TableDef): Map<string, string> {
  return new Map(def.columns.flatMap((c) => (c.description ? [[c.name, c.description] as const] : [])));
}

/** The `_changes` view's comments: the key's from the table, the rest fixed. */
function changesText(def: TableDef): ViewText {
  const own = described(def);
  const fixed: [string, string][] = [
    ["change", "added: the key's first version; changed: a later version changed column_name."],
    ["column_name", `The column of ${def.name} (or the child table) whose value changed; null when added.`],
    ["old_value", "The value before, as text (a child table: its row count); null when added."],
    ["new_value", "The value after, as text (a child table: its row count); null when added."],
    ["load_id", "The load that wrote the new version."],
    ["changed_at", "When the new version became current (its valid_from, UTC)."],
  ];
  return {
    view: `What each load changed in ${def.name}: per key, one row per changed column or child table (old → new, as text), and an added row for a key's first version.`,
    columns: new Map([
      ...def.key.flatMap((k): [string, string][] => [[k, own.get(k) ?? `${def.name}'s ${k}.`]]),
      ...fixed,
    ]),
    computed: (c) => `${def.name}'s ${c}.`,
  };
}

function changesSql(m: CompiledMapping): string {
  const t = ident(m.table.name);
  const key = m.table.key;
  const keyCols = key.map((k) => `v.${ident(k)}`).join(", ");
  const sameKey = (a: string, b: string) =>
    key.map((k) => `${a}.${ident(k)} = ${b}.${ident(k)}`).join(" and ");
  const tail = "v.load_id, v.valid_from as changed_at";
  const pair = `from ${t} v join ${t} p on ${sameKey("p", "v")} and p.valid_to = v.valid_from`;
  const added = `select ${keyCols}, 'added' as change, cast(null as text) as column_name,
    cast(null as text) as old_value, cast(null as text) as new_value, ${tail}
    from ${t} v where not exists (select 1 from ${t} p where ${sameKey("p", "v")} and p.valid_from < v.valid_from)`;
  const columns = contentColumns(m.table, m.volatile)
    .filter((c) => !key.includes(c))
    .map(
      (
        c,
      ) => `select ${keyCols}, 'changed', '${c}', cast(p.${ident(c)} as text), cast(v.${ident(c)} as text), ${tail}
    ${pair} where p.${ident(c)} is distinct from v.${ident(c)}`,
    );
  const children = m.children.map((child) => {
    const count = (alias: string) =>
      `cast((select count(*) from ${ident(child.name)} c where ${childOf(key, alias)}) as text)`;
    return `select ${keyCols}, 'changed', '${child.name}', ${count("p")}, ${count("v")}, ${tail}
    ${pair} where p.${CHILDREN_HASH} is distinct from v.${CHILDREN_HASH}`;
  });
  return [added, ...columns, ...children].join("\n  union all ");
}

/** A child row of the parent version `alias`: same key, same `valid_from`. */
function childOf(key: readonly string[], alias: string): string {
  return [
    ...key.map((k) => `c.${ident(k)} = ${alias}.${ident(k)}`),
    `c.valid_from = ${alias}.valid_from`,
  ].join(" and ");
}

/** The names of the views a mapping's history tables come with (none unless `history`). */
export function historyViewNames(m: CompiledMapping): string[] {
  if (m.mode !== "history") return [];
  return [...[m.table, ...m.children].map((d) => currentView(d.name)), changesView(m.table.name)];
}
