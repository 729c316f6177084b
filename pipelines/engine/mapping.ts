import type { ColumnType, TableDef } from "../../connectors/warehouse/types.js";
import type { ChildSpec, ColumnSpec, RecordsSpec } from "../../schema/pipeline.js";
import { applyTransform, ConversionError, camelCase, toColumn } from "./convert.js";
import { type ColumnInference, createInference, declareKeyColumns, INFER_STAGING } from "./infer.js";

export type Row = Record<string, unknown>;

/** What a record's columns may read besides the record itself. */
export interface RecordContext {
  input: unknown;
  request: Record<string, unknown>;
  params: Record<string, unknown>;
  observedAt: string;
  runId: string;
  skill: string;
}

export interface Reject {
  table: string;
  reason: string;
  record: unknown;
}

export interface Normalised {
  /** Rows per table name, parent first. */
  rows: Map<string, Row[]>;
  rejects: Reject[];
}

type Getter = (record: unknown, index: number, ctx: RecordContext) => unknown;

interface CompiledColumn {
  name: string;
  type: ColumnType;
  get: Getter;
  /** The top-level member this column consumes (so it is not repeated in the extra JSON). */
  consumes: string | undefined;
}

export const META_COLUMNS = [
  { name: "run_id", type: "text" },
  { name: "loaded_at", type: "timestamp" },
] as const;

export function getPath(value: unknown, path: string): unknown {
  if (path === "." || path === "") return value;
  let cur = value;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function compileColumn(name: string, spec: ColumnSpec): CompiledColumn {
  const s = typeof spec === "string" ? { type: spec } : spec;
  const type = s.type ?? "text";
  const transform = typeof spec === "string" ? undefined : spec.transform;
  if (typeof spec !== "string" && spec.value !== undefined) {
    const constant = spec.value;
    return { name, type, get: () => constant, consumes: undefined };
  }
  const from = (typeof spec === "string" ? undefined : spec.from) ?? camelCase(name);
  const typed = (v: unknown) => toColumn(applyTransform(v, transform), type);
  if (from.startsWith("$")) {
    const [head, ...rest] = from.slice(1).split(".");
    const sub = rest.join(".");
    const ctxGet: Getter =
      head === "index"
        ? (_r, i) => i + 1
        : head === "input"
          ? (_r, _i, c) => c.input
          : head === "observedAt"
            ? (_r, _i, c) => c.observedAt
            : head === "skill"
              ? (_r, _i, c) => c.skill
              : head === "request"
                ? (_r, _i, c) => getPath(c.request, sub)
                : head === "param"
                  ? (_r, _i, c) => c.params[sub]
                  : () => {
                      throw new ConversionError(`unknown context value ${from}`);
                    };
    // A record member of the column's own name is the same value seen from the record: not extra.
    return { name, type, get: (r, i, c) => typed(ctxGet(r, i, c)), consumes: camelCase(name) };
  }
  const top = from.split(".")[0];
  // Members are camelCase by default; a source that already uses the column's own name still maps.
  const alt = from === camelCase(name) && from !== name ? name : undefined;
  const get: Getter = (r) => {
    let v = getPath(r, from);
    if (v === undefined && alt !== undefined) v = getPath(r, alt);
    return typed(v);
  };
  return { name, type, get, consumes: from.includes(".") ? undefined : top };
}

interface CompiledTable {
  def: TableDef;
  columns: CompiledColumn[];
  extra: string | false;
  consumed: Set<string>;
}

function compileTable(
  name: string,
  columns: Record<string, ColumnSpec>,
  extra: string | false,
  key: string[],
): CompiledTable {
  const compiled = Object.entries(columns).map(([n, s]) => compileColumn(n, s));
  const consumed = new Set(compiled.map((c) => c.consumes).filter((c): c is string => c !== undefined));
  const defCols = [
    ...compiled.map((c) => ({ name: c.name, type: c.type })),
    ...(extra ? [{ name: extra, type: "json" as const }] : []),
    ...META_COLUMNS,
  ];
  return { def: { name, columns: defCols, key }, columns: compiled, extra, consumed };
}

function rowOf(t: CompiledTable, record: unknown, index: number, ctx: RecordContext, skip: Set<string>): Row {
  const row: Row = {};
  for (const c of t.columns) {
    try {
      row[c.name] = c.get(record, index, ctx);
    } catch (err) {
      if (err instanceof ConversionError)
        throw new ConversionError(`column ${t.def.name}.${c.name}: ${err.message}`);
      throw err;
    }
  }
  if (t.extra) {
    const extra: Record<string, unknown> = {};
    let any = false;
    if (record && typeof record === "object" && !Array.isArray(record)) {
      for (const [k, v] of Object.entries(record)) {
        if (t.consumed.has(k) || skip.has(k) || v === undefined) continue;
        extra[k] = v;
        any = true;
      }
    }
    row[t.extra] = any ? extra : null;
  }
  row["run_id"] = ctx.runId;
  row["loaded_at"] = ctx.observedAt;
  return row;
}

export interface CompiledMapping {
  table: TableDef;
  children: TableDef[];
  mode: RecordsSpec["mode"];
  /** With `inferColumns`: adds the columns the data brings and gives the tables to write. */
  infer: ColumnInference | undefined;
  /** Records of one response → typed rows per table; records that cannot be typed are rejected, not fatal. */
  normalise(data: unknown, ctx: RecordContext): Normalised;
}

function asList(v: unknown): unknown[] {
  if (v === null || v === undefined) return [];
  return Array.isArray(v) ? v : [v];
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
  // Inference reads unconsumed members from the extra JSON; with `extra: false` they stage unwritten.
  const staging = (extra: string | false) => (spec.inferColumns && extra === false ? INFER_STAGING : extra);
  const visible = (def: TableDef): TableDef => ({
    ...def,
    columns: def.columns.filter((c) => c.name !== INFER_STAGING),
  });
  const key = spec.key ?? [];
  const parent = compileTable(spec.table, spec.columns, staging(spec.extra), key);
  const childParts = spec.children.map((c: ChildSpec) => {
    const sources = typeof c.path === "string" ? [{ path: c.path, set: undefined }] : c.path;
    const setCols = [...new Set(sources.flatMap((s) => Object.keys(s.set ?? {})))];
    const t = compileTable(c.table, c.columns, staging(c.extra), []);
    const keyCols = key.map((k) => ({
      name: k,
      type: parent.def.columns.find((col) => col.name === k)?.type ?? "text",
    }));
    t.def = {
      name: c.table,
      columns: [
        ...keyCols,
        { name: "position", type: "integer" },
        ...setCols.map((n) => ({ name: n, type: "text" as const })),
        { name: c.valueColumn, type: "text" },
        ...t.def.columns.filter((col) => col.name !== c.valueColumn),
      ],
      key: [...key, "position"],
      unique: spec.mode !== "append",
      indexes: key.length ? [key] : [],
    };
    return { spec: c, table: t, sources, setCols };
  });
  const childTops = new Set(childParts.flatMap((c) => c.sources.map((s) => s.path.split(".")[0] ?? s.path)));

  const table = visible({ ...parent.def, unique: spec.mode !== "append", indexes: spec.indexes ?? [] });
  const children = childParts.map((c) => visible(c.table.def));
  return {
    table,
    children,
    mode: spec.mode,
    infer: spec.inferColumns
      ? createInference([
          { def: table, staging: parent.extra as string },
          ...childParts.map((c, i) => ({ def: children[i]!, staging: c.table.extra as string })),
        ])
      : undefined,
    normalise(data, ctx) {
      const rows = new Map<string, Row[]>([[parent.def.name, []]]);
      for (const c of childParts) rows.set(c.table.def.name, []);
      const rejects: Reject[] = [];
      asList(getPath(data, spec.path)).forEach((record, index) => {
        try {
          const row = rowOf(parent, record, index, ctx, childTops);
          const missing = key.filter((k) => row[k] === null || row[k] === undefined);
          if (missing.length) throw new ConversionError(`key column ${missing.join(", ")} is empty`);
          const childRows: [string, Row][] = [];
          for (const c of childParts) {
            let position = 0;
            for (const source of c.sources) {
              for (const element of asList(getPath(record, source.path))) {
                position++;
                const isScalar = element === null || typeof element !== "object";
                const child = rowOf(c.table, isScalar ? {} : element, position - 1, ctx, new Set());
                for (const k of key) child[k] = row[k];
                child["position"] = position;
                for (const n of c.setCols)
                  child[n] = source.set?.[n] === undefined ? null : String(source.set[n]);
                child[c.spec.valueColumn] = isScalar
                  ? element === null
                    ? null
                    : String(element)
                  : (child[c.spec.valueColumn] ?? null);
                childRows.push([c.table.def.name, child]);
              }
            }
          }
          rows.get(parent.def.name)!.push(row);
          for (const [t, r] of childRows) rows.get(t)!.push(r);
        } catch (err) {
          if (!(err instanceof ConversionError)) throw err;
          rejects.push({ table: parent.def.name, reason: err.message, record });
        }
      });
      return { rows, rejects };
    },
  };
}
