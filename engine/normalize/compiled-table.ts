import type { ColumnSpec } from "../../schema/pipeline.js";
import type { TableDef } from "../../schema/table.js";
import { type CompiledColumn, compileColumn } from "./column-read.js";
import { ConversionError } from "./convert.js";
import type { RecordContext, Row } from "./row.js";
import { type FastRow, generateRow } from "./row-builder.js";
import { TOOLKIT_COLUMNS } from "./table-comments.js";

/** One table of a mapping compiled once, and the building of its rows from records. */

export const META_COLUMNS = [
  { name: "run_id", type: "text", description: TOOLKIT_COLUMNS.run_id },
  { name: "loaded_at", type: "timestamp", description: TOOLKIT_COLUMNS.loaded_at },
  { name: "load_id", type: "integer", description: TOOLKIT_COLUMNS.load_id },
] as const;

export interface CompiledTable {
  def: TableDef;
  columns: CompiledColumn[];
  extra: string | false;
  consumed: Set<string>;
  /** The row builder generated for this table (rowOf's fast path); undefined when it cannot be. */
  fast: FastRow | undefined;
}

/** A per-batch value that could not be typed: every record of the batch is rejected with it. */
class BatchFailure {
  constructor(readonly error: ConversionError) {}
}
const PER_RECORD = Symbol("per record");
export type BatchValue = unknown;

export function compileTable(
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
export function fastFor(t: CompiledTable, pre: BatchValue[]): FastRow | undefined {
  return pre.some((v) => v instanceof BatchFailure) ? undefined : t.fast;
}

/** The values of a table's per-batch columns for one response (PER_RECORD for the others). */
export function batchValues(t: CompiledTable, ctx: RecordContext): BatchValue[] {
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

export function rowOf(
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
  if (t.extra) row[t.extra] = extraMembers(t, record, skip);
  row["run_id"] = ctx.runId;
  row["loaded_at"] = ctx.observedAt;
  row["load_id"] = ctx.loadId ?? null;
  return row;
}

/** The record's members that no column consumes (the extra JSON), or null when there are none. */
function extraMembers(
  t: CompiledTable,
  record: unknown,
  skip: ReadonlySet<string>,
): Record<string, unknown> | null {
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
  return extra;
}
