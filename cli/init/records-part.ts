import { camelCase, snakeCase } from "../../engine/normalize/convert.js";
import type { JsonSchema } from "../../schema/documents/json-schema.js";
import { isPatentIdentifierSlug } from "../../schema/patent-identifier.js";
import type { ColumnType } from "../../schema/table.js";
import { type MemberShape, objectMembers, recordSchema } from "./json-schema-member.js";

type ColumnEntry = ColumnType | { from: string; type?: ColumnType };

/** The `records` block of a starting pipeline. */
export interface RecordsPart {
  path: string;
  table: string;
  key?: string[];
  mode: "merge" | "append";
  inferColumns?: true;
  columns: Record<string, ColumnEntry>;
}

// The record member naming the patent a patent-identifier record is about.
const PATENT_KEY = "pn";

/**
 * Columns from the documented record fields (objects and lists as json), at the operation's
 * records path. A key only where one is evident: a patent-identifier operation answers one record
 * per patent (`pn`), unless it pages within a patent (an `offset` member: several records each).
 * Otherwise rows are appended. Records the contract leaves undescribed infer their columns.
 *
 * @example recordsPart(op, dataJsonSchema(op), ["patentId", "patentNumber"]).key // ["pn"]
 */
export function recordsPart(
  slug: string,
  recordsPath: string,
  data: JsonSchema,
  requestMembers: string[],
): RecordsPart {
  const members = objectMembers(recordSchema(data, recordsPath));
  const part: RecordsPart = { path: recordsPath, table: tableName(slug), mode: "append", columns: {} };
  for (const [member, shape] of members) {
    const name = snakeCase(member);
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name) || name.startsWith("skillsync_")) continue;
    const type = columnType(shape);
    part.columns[name] = camelCase(name) === member ? type : { from: member, type };
  }
  if (members.length === 0) part.inferColumns = true;
  const onePerPatent = isPatentIdentifierSlug(slug) && !requestMembers.includes("offset");
  if (!onePerPatent || !(PATENT_KEY in part.columns)) return part;
  // Rebuilt so the key is written before the columns, where a reader looks for it.
  const { path, table, columns } = part;
  return { path, table, key: [PATENT_KEY], mode: "merge", columns };
}

/** The table of a skill: its slug in snake_case, within the 63 characters of a name. */
export const tableName = (slug: string): string => snakeCase(slug).slice(0, 63).replace(/_+$/, "");

function columnType(shape: MemberShape): ColumnType {
  const [t, ...more] = shape.types;
  if (t === undefined || t === "array" || t === "object") return "json";
  if (more.length > 0) return more.includes("object") || more.includes("array") ? "json" : "text";
  if (t === "boolean" || t === "integer" || t === "number") return t;
  return "text";
}
