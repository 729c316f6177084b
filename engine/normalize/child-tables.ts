import type { ChildSpec, RecordsSpec } from "../../schema/pipeline.js";
import type { ColumnDef, TableDef } from "../../schema/table.js";
import { compilePath } from "../define/member-path.js";
import { type CompiledTable, compileTable } from "./compiled-table.js";
import { childRelation, TOOLKIT_COLUMNS, tableComment } from "./table-comments.js";

/** A `records.children` table: its definition beside the parent's, and its elements' sources. */

interface ChildSource {
  path: string;
  set?: Record<string, unknown> | undefined;
}

export interface ChildPart {
  table: CompiledTable;
  sources: readonly ChildSource[];
  setCols: string[];
  /** Per source: the path compiled and the `set` values as the columns take them, made once. */
  compiledSources: { read: (value: unknown) => unknown; setValues: (string | null)[] }[];
  valueColumn: string | undefined;
}

/** What a child table takes from the mapping around it. */
export interface ChildContext {
  spec: RecordsSpec;
  parent: TableDef;
  key: string[];
  /** The extra column a child stages its unconsumed members in (inference's staging column). */
  staging: (extra: string | false) => string | false;
}

export function compileChild(c: ChildSpec, at: ChildContext): ChildPart {
  const sources: readonly ChildSource[] =
    typeof c.path === "string" ? [{ path: c.path, set: undefined }] : c.path;
  const setCols = [...new Set(sources.flatMap((s) => Object.keys(s.set ?? {})))];
  const table = compileTable(c.table, c.columns, at.staging(c.extra), []);
  const valueColumn = valueColumnOf(c);
  table.def = childTableDef(c, at, table.def, { sources, setCols, valueColumn });
  const compiledSources = sources.map((src) => ({
    read: compilePath(src.path),
    setValues: setCols.map((n) => (src.set?.[n] === undefined ? null : String(src.set[n]))),
  }));
  return { table, sources, setCols, compiledSources, valueColumn };
}

function childTableDef(
  c: ChildSpec,
  { spec, parent, key }: ChildContext,
  compiled: TableDef,
  { sources, setCols, valueColumn }: Pick<ChildPart, "sources" | "setCols" | "valueColumn">,
): TableDef {
  const history = spec.mode === "history";
  return {
    name: c.table,
    columns: [
      ...childKeyColumns(parent, key),
      { name: "position", type: "integer", description: TOOLKIT_COLUMNS.position },
      ...setCols.map((n) => ({
        name: n,
        type: "text" as const,
        description: TOOLKIT_COLUMNS.set(n, sources),
      })),
      ...(valueColumn ? [valueColumnDef(valueColumn, compiled)] : []),
      ...compiled.columns.filter((col) => col.name !== valueColumn),
      ...(history ? childVersionColumns(spec.table) : []),
    ],
    key: [...key, "position"],
    unique: spec.mode !== "append" && !history,
    indexes: key.length ? [key] : [],
    ...(history ? { versioned: "child" as const } : {}),
    description: tableComment(c.description, childRelation(spec.table, spec.mode, key)),
    parent: childParent(spec, key),
  };
}

/** A `history` child's version columns: its parent version's span. */
const childVersionColumns = (parent: string): ColumnDef[] => [
  { name: "valid_from", type: "timestamp", description: TOOLKIT_COLUMNS.parentValidFrom(parent) },
  { name: "valid_to", type: "timestamp", description: TOOLKIT_COLUMNS.parentValidTo(parent) },
];

/**
 * The column a child's scalar elements go to: the declared `valueColumn`, else `value` for a list
 * of plain values (no columns declared). A child of objects (columns declared) has none: it would
 * only ever hold NULL.
 */
function valueColumnOf(c: ChildSpec): string | undefined {
  return c.valueColumn ?? (Object.keys(c.columns).length ? undefined : "value");
}

/** The value column as text, described as the pipeline declares it (else as the element itself). */
function valueColumnDef(name: string, declared: TableDef): ColumnDef {
  const description = declared.columns.find((col) => col.name === name)?.description;
  return { name, type: "text", description: description ?? TOOLKIT_COLUMNS.value };
}

/** A child's copy of its parent's key, typed as the parent's columns. */
function childKeyColumns(parent: TableDef, key: readonly string[]): ColumnDef[] {
  return key.map((k) => ({
    name: k,
    type: parent.columns.find((col) => col.name === k)?.type ?? "text",
    description: TOOLKIT_COLUMNS.parentKey(parent.name, k),
  }));
}

/**
 * Which parent row a child row belongs to, where that is one row: the parent's key in `merge` and
 * `replace`, the key and version start in `history`. In `append` no parent row is unique.
 */
function childParent(spec: RecordsSpec, key: readonly string[]): TableDef["parent"] {
  if (spec.mode === "append" || !key.length) return undefined;
  return { table: spec.table, columns: spec.mode === "history" ? [...key, "valid_from"] : [...key] };
}
