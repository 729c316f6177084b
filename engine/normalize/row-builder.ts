import type { ColumnType } from "../../schema/table.js";
import { toColumn } from "./convert.js";
import type { RecordContext, Row } from "./row.js";

/** Builds one table's row from a record: the generated fast path of compiled-table.ts `rowOf`. */
export type FastRow = (
  record: unknown,
  index: number,
  ctx: RecordContext,
  pre: readonly unknown[],
  skip: ReadonlySet<string>,
) => Row;

/** What the generator needs to know of a column (column-read.ts `CompiledColumn`). */
export interface RowColumn {
  name: string;
  type: ColumnType;
  /** Any column's value, the slow way (transforms, `$index`, context paths). */
  get: (record: unknown, index: number, ctx: RecordContext) => unknown;
  perBatch: boolean;
  member?: { parts: string[]; alt: string | undefined } | undefined;
}

const lit = (s: string) => JSON.stringify(s);

/** `v` typed for its column: the common JSON shapes inline, anything else through `toColumn`. */
function typed(type: ColumnType): string {
  const slow = `toColumn(v, ${lit(type)})`;
  switch (type) {
    case "text":
      return `typeof v === "string" ? v : v == null ? null : ${slow}`;
    case "integer":
      return `typeof v === "number" && Number.isInteger(v) ? v : v == null ? null : ${slow}`;
    case "number":
    case "decimal":
      return `typeof v === "number" && Number.isFinite(v) ? v : v == null ? null : ${slow}`;
    case "boolean":
      return `typeof v === "boolean" ? v : v == null ? null : ${slow}`;
    default:
      return `v == null ? null : ${slow}`;
  }
}

/** Reads `parts` from the record `r` into `v`, as `compilePath` (define/member-path.ts) does. */
function read(parts: string[]): string {
  const [first, ...rest] = parts;
  return [
    `v = r[${lit(first!)}]`,
    ...rest.map((p) => `v = v !== null && typeof v === "object" ? v[${lit(p)}] : undefined`),
  ].join(", ");
}

/**
 * Generates a table's row builder once per pipeline: one object literal of a fixed shape, each
 * column read and typed inline (no closure call, no switch on the type per value). A value that
 * cannot be typed throws a ConversionError without the column's name; the caller builds the row
 * again the slow way, which names it. Undefined when a name could not be a literal's key.
 *
 * Names come from pipeline files but only ever appear as JSON string literals in the code.
 */
export function generateRow(
  columns: readonly RowColumn[],
  extra: string | false,
  consumed: ReadonlySet<string>,
): FastRow | undefined {
  const names = [...columns.map((c) => c.name), ...(extra ? [extra] : []), "run_id", "loaded_at", "load_id"];
  // `__proto__` in an object literal sets the prototype instead of a member.
  const members = columns.flatMap((c) => c.member?.parts ?? []);
  if ([...names, ...members].includes("__proto__")) return undefined;
  const fields = columns.map((c, j) => {
    if (c.perBatch) return `${lit(c.name)}: pre[${j}]`;
    if (!c.member) return `${lit(c.name)}: get[${j}](record, index, ctx)`;
    const alt = c.member.alt === undefined ? "" : `, v = v === undefined ? r[${lit(c.member.alt)}] : v`;
    return `${lit(c.name)}: (${read(c.member.parts)}${alt}, ${typed(c.type)})`;
  });
  const body = `
    const r = record !== null && typeof record === "object" ? record : NOTHING;
    let v;
    ${
      extra
        ? `let extra = null;
    if (r !== NOTHING && !Array.isArray(record)) {
      for (const k in record) {
        const x = record[k];
        if (x === undefined || consumed.has(k) || skip.has(k)) continue;
        extra ??= {};
        extra[k] = x;
      }
    }`
        : ""
    }
    return {
      ${[...fields, ...(extra ? [`${lit(extra)}: extra`] : []), `"run_id": ctx.runId`, `"loaded_at": ctx.observedAt`, `"load_id": ctx.loadId ?? null`].join(",\n      ")}
    };`;
  const make = new Function(
    "toColumn",
    "get",
    "consumed",
    "NOTHING",
    `"use strict"; return function fastRow(record, index, ctx, pre, skip) {${body}\n};`,
  ) as (
    convert: typeof toColumn,
    get: RowColumn["get"][],
    consumed: ReadonlySet<string>,
    nothing: object,
  ) => FastRow;
  return make(
    toColumn,
    columns.map((c) => c.get),
    consumed,
    Object.freeze(Object.create(null)),
  );
}
