import type { ChildPart } from "./child-tables.js";
import { type BatchValue, batchValues, type CompiledTable, fastFor, rowOf } from "./compiled-table.js";
import { ConversionError } from "./convert.js";
import type { Normalised, RecordContext, Reject, Row } from "./row.js";
import type { FastRow } from "./row-builder.js";

/** One response's records → typed rows per table, with a compiled mapping's tables. */

/** What normalising a response needs, made once per mapping. */
export interface RecordsPlan {
  parent: CompiledTable;
  children: ChildPart[];
  key: string[];
  readRecords: (data: unknown) => unknown;
  /** The top-level members the children read: not repeated in the parent's extra JSON. */
  childTops: ReadonlySet<string>;
}

/** One response's per-batch values and row builders, per table. */
interface Batch {
  ctx: RecordContext;
  parentPre: BatchValue[];
  parentFast: FastRow | undefined;
  childPre: BatchValue[][];
  childFast: (FastRow | undefined)[];
}

const NONE: ReadonlySet<string> = new Set();

function asList(v: unknown): unknown[] {
  if (v === null || v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** Records that cannot be typed are rejected with the reason, not fatal. */
export function normaliseRecords(plan: RecordsPlan, data: unknown, ctx: RecordContext): Normalised {
  const parentRows: Row[] = [];
  const childLists = plan.children.map((): Row[] => []);
  const rejects: Reject[] = [];
  const childRows: [number, Row][] = [];
  const batch = batchOf(plan, ctx);
  asList(plan.readRecords(data)).forEach((record, index) => {
    try {
      const row = rowOf(plan.parent, batch.parentPre, batch.parentFast, record, index, ctx, plan.childTops);
      requireKey(row, plan.key);
      childRows.length = 0;
      collectChildRows(plan, batch, record, row, childRows);
      parentRows.push(row);
      for (const [p, r] of childRows) childLists[p]!.push(r);
    } catch (err) {
      if (!(err instanceof ConversionError)) throw err;
      rejects.push({ table: plan.parent.def.name, reason: err.message, record });
    }
  });
  const rows = new Map<string, Row[]>([[plan.parent.def.name, parentRows]]);
  plan.children.forEach((c, p) => {
    rows.set(c.table.def.name, childLists[p]!);
  });
  return { rows, rejects };
}

function batchOf(plan: RecordsPlan, ctx: RecordContext): Batch {
  const parentPre = batchValues(plan.parent, ctx);
  const childPre = plan.children.map((c) => batchValues(c.table, ctx));
  return {
    ctx,
    parentPre,
    parentFast: fastFor(plan.parent, parentPre),
    childPre,
    childFast: plan.children.map((c, p) => fastFor(c.table, childPre[p]!)),
  };
}

function requireKey(row: Row, key: readonly string[]): void {
  for (const k of key) {
    if (row[k] === null || row[k] === undefined) {
      const missing = key.filter((m) => row[m] === null || row[m] === undefined);
      throw new ConversionError(`key column ${missing.join(", ")} is empty`);
    }
  }
}

/** The rows of every child table for one parent row, as [child index, row], in `out`. */
function collectChildRows(
  plan: RecordsPlan,
  batch: Batch,
  record: unknown,
  parentRow: Row,
  out: [number, Row][],
): void {
  for (let p = 0; p < plan.children.length; p++) {
    const c = plan.children[p]!;
    let position = 0;
    for (const source of c.compiledSources) {
      for (const element of asList(source.read(record))) {
        position++;
        out.push([
          p,
          childRow(plan, batch, p, { element, position, parentRow, setValues: source.setValues }),
        ]);
      }
    }
  }
}

interface Element {
  element: unknown;
  /** 1-based, across the child's sources. */
  position: number;
  parentRow: Row;
  setValues: (string | null)[];
}

/** One element's row: the parent's key, its position, its source's `set` values; a scalar goes whole into the value column. */
function childRow(plan: RecordsPlan, batch: Batch, p: number, e: Element): Row {
  const c = plan.children[p]!;
  const { element, position } = e;
  const isScalar = element === null || typeof element !== "object";
  const { childPre, childFast, ctx } = batch;
  const row = rowOf(c.table, childPre[p]!, childFast[p], isScalar ? {} : element, position - 1, ctx, NONE);
  for (const k of plan.key) row[k] = e.parentRow[k];
  row["position"] = position;
  for (let i = 0; i < c.setCols.length; i++) row[c.setCols[i]!] = e.setValues[i];
  if (c.valueColumn !== undefined)
    row[c.valueColumn] = isScalar
      ? element === null
        ? null
        : String(element)
      : (row[c.valueColumn] ?? null);
  return row;
}
