import type { ChildSpec, ColumnSpec, RecordsSpec } from "../../schema/pipeline.js";
import type { ColumnDef, ColumnType, TableDef } from "../../schema/table.js";
import { compilePath } from "../define/member-path.js";
import { applyTransform, ConversionError, camelCase, toColumn } from "./convert.js";
import { type ColumnInference, createInference, declareKeyColumns, INFER_STAGING } from "./infer-members.js";
import type { Normalised, RecordContext, Reject, Row } from "./row.js";
import { type FastRow, generateRow } from "./row-builder.js";
import { childRelation, parentRelation, TOOLKIT_COLUMNS, tableComment } from "./table-comments.js";

type Getter = (record: unknown, index: number, ctx: RecordContext) => unknown;

interface CompiledColumn {
  name: string;
  type: ColumnType;
  description: string | undefined;
  get: Getter;
  /** The top-level member this column consumes (so it is not repeated in the extra JSON). */
  consumes: string | undefined;
  /** The value depends on the response's context alone ($request, $param, $observedAt…): typed once per batch. */
  perBatch: boolean;
  /** A plain read of the record (no transform): members to read, and the member tried when the first is absent. */
  member?: { parts: string[]; alt: string | undefined } | undefined;
}

/** A per-batch value that could not be typed: every record of the batch is rejected with it. */
class BatchFailure {
  constructor(readonly error: ConversionError) {}
}
const PER_RECORD = Symbol("per record");
type BatchValue = unknown;

export const META_COLUMNS = [
  { name: "run_id", type: "text", description: TOOLKIT_COLUMNS.run_id },
  { name: "loaded_at", type: "timestamp", description: TOOLKIT_COLUMNS.loaded_at },
  { name: "load_id", type: "integer", description: TOOLKIT_COLUMNS.load_id },
] as const;

/** What a `history` table's rows carry besides their content: the span each version was current. */
export const VERSION_COLUMNS = [
  { name: "valid_from", type: "timestamp", description: TOOLKIT_COLUMNS.valid_from },
  { name: "valid_to", type: "timestamp", description: TOOLKIT_COLUMNS.valid_to },
] as const;

/** A `history` child's version columns: its parent version's span. */
const childVersionColumns = (parent: string): ColumnDef[] => [
  { name: "valid_from", type: "timestamp", description: TOOLKIT_COLUMNS.parentValidFrom(parent) },
  { name: "valid_to", type: "timestamp", description: TOOLKIT_COLUMNS.parentValidTo(parent) },
];

/** A `history` parent's fingerprint of its row's content and its children's (history.ts). */
export const VERSION_HASH = "version_hash";
/** A `history` parent's fingerprint of its children's content alone (the changes view's child rows). */
export const CHILDREN_HASH = "children_hash";

function compileColumn(name: string, spec: ColumnSpec): CompiledColumn {
  const when = typeof spec === "string" ? undefined : spec.when;
  return when ? onlyWhen(compileRead(name, spec), when) : compileRead(name, spec);
}

/** `when:` — the column's value for records whose member matches the pattern; null for the others. */
function onlyWhen(c: CompiledColumn, when: { member: string; matches: string }): CompiledColumn {
  const read = compilePath(when.member);
  const pattern = new RegExp(when.matches);
  const matches = (r: unknown) => {
    const v = read(r);
    if (v === null || v === undefined) return false;
    return pattern.test(typeof v === "object" ? JSON.stringify(v) : String(v));
  };
  const get: Getter = (r, i, ctx) => (matches(r) ? c.get(r, i, ctx) : null);
  return { ...c, get, perBatch: false, member: undefined };
}

function compileRead(name: string, spec: ColumnSpec): CompiledColumn {
  const s = typeof spec === "string" ? { type: spec } : spec;
  const type = s.type ?? "text";
  const transform = typeof spec === "string" ? undefined : spec.transform;
  const description = typeof spec === "string" ? undefined : spec.description;
  if (typeof spec !== "string" && spec.value !== undefined) {
    const constant = spec.value;
    return { name, type, description, get: () => constant, consumes: undefined, perBatch: true };
  }
  const from = (typeof spec === "string" ? undefined : spec.from) ?? camelCase(name);
  const typed =
    transform === undefined
      ? (v: unknown) => toColumn(v, type)
      : (v: unknown) => toColumn(applyTransform(v, transform, type), type);
  if (from.startsWith("$")) {
    const [head, ...rest] = from.slice(1).split(".");
    const sub = compilePath(rest.join("."));
    const param = rest.join(".");
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
                ? (_r, _i, c) => sub(c.request)
                : head === "param"
                  ? (_r, _i, c) => c.params[param]
                  : head === "data"
                    ? (_r, _i, c) => sub(c.data)
                    : () => {
                        throw new ConversionError(`unknown context value ${from}`);
                      };
    // A record member of the column's own name is the same value seen from the record: not extra.
    return {
      name,
      type,
      description,
      get: (r, i, c) => typed(ctxGet(r, i, c)),
      consumes: camelCase(name),
      perBatch: head !== "index",
    };
  }
  const top = from.split(".")[0];
  // Members are camelCase by default; a source that already uses the column's own name still maps.
  const alt = from === camelCase(name) && from !== name ? name : undefined;
  const read = compilePath(from);
  const readAlt = alt === undefined ? undefined : compilePath(alt);
  const get: Getter = readAlt
    ? (r) => {
        const v = read(r);
        return typed(v === undefined ? readAlt(r) : v);
      }
    : (r) => typed(read(r));
  return {
    name,
    type,
    description,
    get,
    consumes: from.includes(".") || from.includes("[]") ? undefined : top,
    perBatch: false,
    // A path through lists (`a[].b`) is read by compilePath only, not by the generated builder.
    member: transform === undefined && !from.includes("[]") ? { parts: from.split("."), alt } : undefined,
  };
}

interface CompiledTable {
  def: TableDef;
  columns: CompiledColumn[];
  extra: string | false;
  consumed: Set<string>;
  /** The row builder generated for this table (rowOf's fast path); undefined when it cannot be. */
  fast: FastRow | undefined;
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
    ...compiled.map((c) => ({ name: c.name, type: c.type, description: c.description })),
    ...(extra ? [{ name: extra, type: "json" as const, description: TOOLKIT_COLUMNS.extra }] : []),
    ...META_COLUMNS,
  ];
  return {
    def: { name, columns: defCols, key },
    columns: compiled,
    extra,
    consumed,
    fast: generateRow(compiled, extra, consumed),
  };
}

/** The generated builder, when this batch's per-batch values could all be typed (else the slow way names the column). */
function fastFor(t: CompiledTable, pre: BatchValue[]): FastRow | undefined {
  return pre.some((v) => v instanceof BatchFailure) ? undefined : t.fast;
}

/** The values of a table's per-batch columns for one response (PER_RECORD for the others). */
function batchValues(t: CompiledTable, ctx: RecordContext): BatchValue[] {
  return t.columns.map((c) => {
    if (!c.perBatch) return PER_RECORD;
    try {
      return c.get(undefined, 0, ctx);
    } catch (err) {
      if (err instanceof ConversionError) return new BatchFailure(err);
      throw err;
    }
  });
}

function rowOf(
  t: CompiledTable,
  pre: BatchValue[],
  fast: FastRow | undefined,
  record: unknown,
  index: number,
  ctx: RecordContext,
  skip: ReadonlySet<string>,
): Row {
  if (fast) {
    try {
      return fast(record, index, ctx, pre, skip);
    } catch (err) {
      // The generated builder only says that a value failed: the row is built again below, which
      // names the column in the reason.
      if (!(err instanceof ConversionError)) throw err;
    }
  }
  return slowRow(t, pre, record, index, ctx, skip);
}

function slowRow(
  t: CompiledTable,
  pre: BatchValue[],
  record: unknown,
  index: number,
  ctx: RecordContext,
  skip: ReadonlySet<string>,
): Row {
  const row: Row = {};
  const cols = t.columns;
  for (let j = 0; j < cols.length; j++) {
    const c = cols[j]!;
    const known = pre[j];
    try {
      if (known === PER_RECORD) row[c.name] = c.get(record, index, ctx);
      else if (known instanceof BatchFailure) throw known.error;
      else row[c.name] = known;
    } catch (err) {
      if (err instanceof ConversionError)
        throw new ConversionError(`column ${t.def.name}.${c.name}: ${err.message}`);
      throw err;
    }
  }
  if (t.extra) {
    let extra: Record<string, unknown> | null = null;
    if (record && typeof record === "object" && !Array.isArray(record)) {
      const members = record as Record<string, unknown>;
      // for…in over a JSON object: own members in order, no entry arrays made per member.
      for (const k in members) {
        const v = members[k];
        if (v === undefined || t.consumed.has(k) || skip.has(k)) continue;
        extra ??= {};
        extra[k] = v;
      }
    }
    row[t.extra] = extra;
  }
  row["run_id"] = ctx.runId;
  row["loaded_at"] = ctx.observedAt;
  row["load_id"] = ctx.loadId ?? null;
  return row;
}

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

const NONE: ReadonlySet<string> = new Set();

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
  const history = spec.mode === "history";
  const parent = compileTable(spec.table, spec.columns, staging(spec.extra), key);
  const childParts = spec.children.map((c: ChildSpec) => {
    const sources = typeof c.path === "string" ? [{ path: c.path, set: undefined }] : c.path;
    const setCols = [...new Set(sources.flatMap((s) => Object.keys(s.set ?? {})))];
    const t = compileTable(c.table, c.columns, staging(c.extra), []);
    const valueColumn = valueColumnOf(c);
    t.def = {
      name: c.table,
      columns: [
        ...childKeyColumns(parent.def, key),
        { name: "position", type: "integer", description: TOOLKIT_COLUMNS.position },
        ...setCols.map((n) => ({
          name: n,
          type: "text" as const,
          description: TOOLKIT_COLUMNS.set(n, sources),
        })),
        ...(valueColumn ? [valueColumnDef(valueColumn, t.def)] : []),
        ...t.def.columns.filter((col) => col.name !== valueColumn),
        ...(history ? childVersionColumns(spec.table) : []),
      ],
      key: [...key, "position"],
      unique: spec.mode !== "append" && !history,
      indexes: key.length ? [key] : [],
      ...(history ? { versioned: "child" as const } : {}),
      description: tableComment(c.description, childRelation(spec.table, spec.mode, key)),
      parent: childParent(spec, key),
    };
    // Per source: the path compiled and the `set` values as the columns take them, made once.
    const compiledSources = sources.map((src) => ({
      read: compilePath(src.path),
      setValues: setCols.map((n) => (src.set?.[n] === undefined ? null : String(src.set[n]))),
    }));
    return { spec: c, table: t, sources, setCols, compiledSources, valueColumn };
  });
  const readRecords = compilePath(spec.path);
  const childTops = new Set(childParts.flatMap((c) => c.sources.map((s) => s.path.split(".")[0] ?? s.path)));

  const table = visible({
    ...parent.def,
    ...(history
      ? {
          columns: [
            ...parent.def.columns,
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
  const children = childParts.map((c) => visible(c.table.def));
  return {
    table,
    children,
    mode: spec.mode,
    volatile: volatileColumns(spec),
    infer: spec.inferColumns
      ? createInference([
          { def: table, staging: parent.extra as string },
          ...childParts.map((c, i) => ({ def: children[i]!, staging: c.table.extra as string })),
        ])
      : undefined,
    normalise(data, ctx) {
      const parentRows: Row[] = [];
      const childLists = childParts.map((): Row[] => []);
      const rejects: Reject[] = [];
      const childRows: [number, Row][] = [];
      const parentPre = batchValues(parent, ctx);
      const childPre = childParts.map((c) => batchValues(c.table, ctx));
      const parentFast = fastFor(parent, parentPre);
      const childFast = childParts.map((c, p) => fastFor(c.table, childPre[p]!));
      asList(readRecords(data)).forEach((record, index) => {
        try {
          const row = rowOf(parent, parentPre, parentFast, record, index, ctx, childTops);
          for (const k of key) {
            if (row[k] === null || row[k] === undefined) {
              const missing = key.filter((m) => row[m] === null || row[m] === undefined);
              throw new ConversionError(`key column ${missing.join(", ")} is empty`);
            }
          }
          childRows.length = 0;
          for (let p = 0; p < childParts.length; p++) {
            const c = childParts[p]!;
            let position = 0;
            for (const source of c.compiledSources) {
              for (const element of asList(source.read(record))) {
                position++;
                const isScalar = element === null || typeof element !== "object";
                const child = rowOf(
                  c.table,
                  childPre[p]!,
                  childFast[p],
                  isScalar ? {} : element,
                  position - 1,
                  ctx,
                  NONE,
                );
                for (const k of key) child[k] = row[k];
                child["position"] = position;
                for (let i = 0; i < c.setCols.length; i++) child[c.setCols[i]!] = source.setValues[i];
                if (c.valueColumn !== undefined)
                  child[c.valueColumn] = isScalar
                    ? element === null
                      ? null
                      : String(element)
                    : (child[c.valueColumn] ?? null);
                childRows.push([p, child]);
              }
            }
          }
          parentRows.push(row);
          for (const [p, r] of childRows) childLists[p]!.push(r);
        } catch (err) {
          if (!(err instanceof ConversionError)) throw err;
          rejects.push({ table: parent.def.name, reason: err.message, record });
        }
      });
      const rows = new Map<string, Row[]>([[parent.def.name, parentRows]]);
      childParts.forEach((c, p) => {
        rows.set(c.table.def.name, childLists[p]!);
      });
      return { rows, rejects };
    },
  };
}
