import { snakeCase } from "../../engine/normalize/convert.js";
import type { JsonSchema } from "../../schema/documents/json-schema.js";
import { isPatentIdentifierSlug } from "../../schema/patent-identifier.js";
import type { ParamDef } from "../../schema/pipeline.js";
import { type MemberShape, objectMembers } from "./json-schema-member.js";

/** A param as written in the file: only what differs from the format's defaults. */
type ParamEntry = Partial<ParamDef>;

/** The request side of a starting pipeline: params, the request template, fan-out, batches, pages. */
export interface RequestPart {
  params: Record<string, ParamEntry>;
  request: Record<string, string>;
  input?: { name: string; from: { param: string } };
  batch?: { member: string; size: number };
  paginate?: { member: string; maxPages: string };
  /** Request members no param can carry (objects, lists of objects): named in a comment. */
  skipped: string[];
}

// Publication numbers are what users hold; patentId wins when both are sent, so only one is offered.
const BATCH_MEMBER = "patentNumber";
const BATCH_OTHER = "patentId";
const PAGE_MEMBER = "page";

/**
 * Params typed from the operation's request schema: one per member, required, enum, default and
 * bounds as the contract has them, each filling its member through `"{{param}}"`. The first
 * required text member fans out (a repeatable param feeding `input`); a patent-identifier
 * operation batches publication numbers instead, and a `page` member becomes `paginate`.
 *
 * @example requestPart("marketplace-search", requestJsonSchema(op)).input // { name: "keyword", from: { param: "keyword" } }
 */
export function requestPart(slug: string, schema: JsonSchema): RequestPart {
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"].map(String) : []);
  const part: RequestPart = { params: {}, request: {}, skipped: [] };
  const batched = isPatentIdentifierSlug(slug);
  if (batched) {
    part.params["patent"] = {
      description: "Publication number, e.g. US11234567B2 (repeat for several)",
      repeatable: true,
      required: true,
    };
    part.input = { name: "patent", from: { param: "patent" } };
    part.batch = { member: BATCH_MEMBER, size: 100 };
  }
  for (const [member, shape] of objectMembers(schema)) {
    if (batched && (member === BATCH_MEMBER || member === BATCH_OTHER)) continue;
    if (member === PAGE_MEMBER && shape.types.includes("integer")) {
      part.params["pages"] = { type: "integer", default: 1, min: 1, description: "Result pages per call" };
      part.paginate = { member, maxPages: "{{pages}}" };
      continue;
    }
    const name = snakeCase(member);
    const def = paramOf(member, shape, required.has(member));
    if (!def || !/^[a-zA-Z][a-zA-Z0-9_]{0,62}$/.test(name)) {
      part.skipped.push(member);
      continue;
    }
    const fansOut =
      !part.input && def.required === true && def.type === undefined && !def.enum && !def.repeatable;
    if (fansOut) {
      def.repeatable = true;
      def.description = `${def.description}; repeat for several, one call each`;
      part.input = { name, from: { param: name } };
    }
    part.params[name] = def;
    part.request[member] = `{{${name}}}`;
  }
  return part;
}

/** The param for one request member, or undefined when no param kind carries it. */
function paramOf(member: string, shape: MemberShape, required: boolean): ParamEntry | undefined {
  const list = shape.types.length === 1 && shape.types[0] === "array";
  const value = list ? shape.items : shape;
  const type = value ? scalarType(value) : undefined;
  if (type === undefined) return undefined;
  const about = shape.description ? ` (${shape.description.replace(/\.$/, "")})` : "";
  const def: ParamEntry = { description: `request member ${member}${about}` };
  if (type !== "string") def.type = type;
  const values = value?.enum;
  if (values && type === "string") def.enum = values.map(String);
  if (values && type === "integer") {
    const numbers = values.map(Number);
    def.min = Math.min(...numbers);
    def.max = Math.max(...numbers);
  }
  if (value?.minimum !== undefined && def.min === undefined) def.min = value.minimum;
  if (value?.maximum !== undefined && def.max === undefined) def.max = value.maximum;
  if (list) def.repeatable = true;
  if (required) def.required = true;
  const d = shape.default;
  if (typeof d === "string" || typeof d === "number" || typeof d === "boolean") def.default = d;
  return def;
}

/** The param type of a scalar member; undefined for objects, lists and members of several types. */
function scalarType(shape: MemberShape): ParamEntry["type"] | undefined {
  if (shape.types.length !== 1) return undefined;
  const [t] = shape.types;
  if (t === "string" || t === "boolean" || t === "integer") return t;
  // A literal union such as `0 | 1` is "number" in JSON Schema, but only whole values are allowed.
  if (t === "number") return shape.enum?.every(Number.isInteger) ? "integer" : "number";
  return undefined;
}
