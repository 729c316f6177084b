import type { JsonSchema } from "../../schema/documents/json-schema.js";

/** One member of a request or a record, as its JSON Schema says it, nulls left aside. */
export interface MemberShape {
  /** The JSON types it may have (`string`, `integer`, `number`, `boolean`, `array`, `object`); empty: any. */
  types: string[];
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  description?: string;
  items?: MemberShape;
}

const isSchema = (v: unknown): v is JsonSchema => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Flattens zod's JSON Schema for one member: `anyOf` branches (an optional member is `X | null`,
 * a literal union `{const: 0} | {const: 1}`) become one list of types and one list of values.
 *
 * @example memberShape({ default: 0, anyOf: [{ type: "number", const: 0 }, { type: "number", const: 1 }] })
 * // { types: ["number"], enum: [0, 1], default: 0 }
 */
function memberShape(schema: JsonSchema): MemberShape {
  const branches = Array.isArray(schema["anyOf"]) ? schema["anyOf"].filter(isSchema) : [schema];
  const types = new Set<string>();
  const values: unknown[] = [];
  let items: MemberShape | undefined;
  for (const b of branches) {
    const t = b["type"];
    for (const type of Array.isArray(t) ? t : t === undefined ? [] : [t]) {
      if (type !== "null") types.add(String(type));
    }
    if (Array.isArray(b["enum"])) values.push(...b["enum"]);
    if ("const" in b) values.push(b["const"]);
    if (isSchema(b["items"])) items = memberShape(b["items"]);
  }
  const number = (v: unknown) => (typeof v === "number" && Number.isSafeInteger(v) ? v : undefined);
  const shape: MemberShape = { types: [...types] };
  if (values.length > 0) shape.enum = values;
  if ("default" in schema) shape.default = schema["default"];
  const min = number(schema["minimum"]);
  const max = number(schema["maximum"]);
  if (min !== undefined) shape.minimum = min;
  // zod writes Number.MAX_SAFE_INTEGER for an integer without a bound: no bound worth stating.
  if (max !== undefined && max < Number.MAX_SAFE_INTEGER) shape.maximum = max;
  if (typeof schema["description"] === "string") shape.description = schema["description"];
  if (items) shape.items = items;
  return shape;
}

/** The members of an object schema (`properties`), each flattened. */
export function objectMembers(schema: JsonSchema | undefined): [string, MemberShape][] {
  const props = schema?.["properties"];
  if (!isSchema(props)) return [];
  return Object.entries(props).flatMap(([name, s]) => (isSchema(s) ? [[name, memberShape(s)]] : []));
}

/**
 * The object schema of the records at `path` in `data`: the item schema of that array member.
 * Undefined when the path names no array of objects.
 */
export function recordSchema(data: JsonSchema, path: string): JsonSchema | undefined {
  let node: JsonSchema | undefined = data;
  for (const part of path.split(".")) {
    const props: unknown = node?.["properties"];
    node = isSchema(props) && isSchema(props[part]) ? props[part] : undefined;
  }
  const branches = Array.isArray(node?.["anyOf"]) ? node["anyOf"].filter(isSchema) : node ? [node] : [];
  const array = branches.find((b) => b["type"] === "array" && isSchema(b["items"]));
  return array?.["items"] as JsonSchema | undefined;
}
