import type { RecordsSpec } from "../../schema/pipeline.js";
import type { TableDef } from "../../schema/table.js";
import { compilePath } from "../define/member-path.js";
import { type ChildContext, type ChildPart, compileChild } from "./child-tables.js";
import { type CompiledTable, compileTable } from "./compiled-table.js";
import { type ColumnInference, createInference, declareKeyColumns, INFER_STAGING } from "./infer-members.js";
import { normaliseRecords } from "./normalise-records.js";
import type { Normalised, RecordContext } from "./row.js";
import { parentRelation, TOOLKIT_COLUMNS, tableComment } from "./table-comments.js";

export { META_COLUMNS } from "./compiled-table.js";

/** What a `history` table's rows carry besides their content: the span each version was current. */
export const VERSION_COLUMNS = [
  { name: "valid_from", type: "timestamp", description: TOOLKIT_COLUMNS.valid_from },
  { name: "valid_to", type: "timestamp", description: TOOLKIT_COLUMNS.valid_to },
] as const;

/** A `history` parent's fingerprint of its row's content and its children's (history.ts). */
export const VERSION_HASH = "version_hash";
/** A `history` parent's fingerprint of its children's content alone (the changes view's child rows). */
export const CHILDREN_HASH = "children_hash";

export interface CompiledMapping {
  table: TableDef;
  children: TableDef[];
  mode: RecordsSpec["mode"];
  /**
   * Columns that say when a row was seen, not what it holds (read from `$observedAt`): a `history`
   * table does not make a new version when only these differ.
   */
  volatile: ReadonlySet<string>;
  /** With `inferColumns`: adds the columns the data brings and gives the tables to write. */
  infer: ColumnInference | undefined;
  /** Records of one response → typed rows per table; records that cannot be typed are rejected, not fatal. */
  normalise(data: unknown, ctx: RecordContext): Normalised;
}

function volatileColumns(spec: RecordsSpec): Set<string> {
  const all = [spec.columns, ...spec.children.map((c) => c.columns)];
  return new Set(
    all.flatMap((cols) =>
      Object.entries(cols).flatMap(([name, c]) =>
        typeof c !== "string" && c.from === "$observedAt" ? [name] : [],
      ),
    ),
  );
}

/** Inference reads unconsumed members from the extra JSON; with `extra: false` they stage unwritten. */
function stagingOf(spec: RecordsSpec): (extra: string | false) => string | false {
  return (extra) => (spec.inferColumns && extra === false ? INFER_STAGING : extra);
}

/** A table as the warehouse sees it: without inference's staging column. */
function visible(def: TableDef): TableDef {
  return { ...def, columns: def.columns.filter((c) => c.name !== INFER_STAGING) };
}

/** The parent table: its columns, and in `history` its version span and fingerprints. */
function parentTableDef(spec: RecordsSpec, parent: TableDef, key: string[]): TableDef {
  const history = spec.mode === "history";
  return visible({
    ...parent,
    ...(history
      ? {
          columns: [
            ...parent.columns,
            ...VERSION_COLUMNS,
            { name: VERSION_HASH, type: "text" as const, description: TOOLKIT_COLUMNS.version_hash },
            { name: CHILDREN_HASH, type: "text" as const, description: TOOLKIT_COLUMNS.children_hash },
          ],
          versioned: "parent" as const,
        }
      : {}),
    unique: spec.mode !== "append" && !history,
    indexes: spec.indexes ?? [],
    description: tableComment(spec.description, parentRelation(spec.table, spec.mode, key)),
  });
}

/** With `inferColumns`: inference over the parent and children, each with its staging column. */
function inferenceOf(
  spec: RecordsSpec,
  parent: { def: TableDef; compiled: CompiledTable },
  children: { def: TableDef; part: ChildPart }[],
): ColumnInference | undefined {
  if (!spec.inferColumns) return undefined;
  return createInference([
    { def: parent.def, staging: parent.compiled.extra as string },
    ...children.map((c) => ({ def: c.def, staging: c.part.table.extra as string })),
  ]);
}

/**
 * Compiles a pipeline's `records` block once into a function; no per-row interpretation of the spec.
 *
 * @example
 * const m = compileMapping({ path: "products", table: "t", key: ["asin"], columns: { asin: "text" }, ... });
 * m.normalise(data, ctx).rows.get("t");
 */
export function compileMapping(declared: RecordsSpec): CompiledMapping {
  const spec = declared.inferColumns ? declareKeyColumns(declared) : declared;
  const key = spec.key ?? [];
  const staging = stagingOf(spec);
  const parent = compileTable(spec.table, spec.columns, staging(spec.extra), key);
  const at: ChildContext = { spec, parent: parent.def, key, staging };
  const childParts = spec.children.map((c) => compileChild(c, at));
  const table = parentTableDef(spec, parent.def, key);
  const children = childParts.map((c) => visible(c.table.def));
  const plan = {
    parent,
    children: childParts,
    key,
    readRecords: compilePath(spec.path),
    childTops: new Set(childParts.flatMap((c) => c.sources.map((s) => s.path.split(".")[0] ?? s.path))),
  };
  return {
    table,
    children,
    mode: spec.mode,
    volatile: volatileColumns(spec),
    infer: inferenceOf(
      spec,
      { def: table, compiled: parent },
      childParts.map((part, i) => ({ def: children[i]!, part })),
    ),
    normalise: (data, ctx) => normaliseRecords(plan, data, ctx),
  };
}
