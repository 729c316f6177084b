import { z } from "zod";
import type { Operation } from "../catalog.js";
import { envelopeSchema } from "../envelope.js";

/** A JSON Schema (draft 2020-12) as a plain object. */
export type JsonSchema = Record<string, unknown>;

const target = "draft-2020-12" as const;

/**
 * The request as a caller writes it (`io: "input"`): members with a default are optional and show
 * their default. Refinements JSON Schema cannot carry are in the `description`s (see schema/).
 *
 * @example
 * requestJsonSchema(getOperation("websearch-patent-search")!).properties.num // { default: 10, minimum: 10, … }
 */
export function requestJsonSchema(op: Operation): JsonSchema {
  return z.toJSONSchema(op.request, { target, io: "input" }) as JsonSchema;
}

/** The operation's `data` as the service answers it (`io: "output"`); unknown members allowed. */
export function dataJsonSchema(op: Operation): JsonSchema {
  return z.toJSONSchema(op.data, { target, io: "output" }) as JsonSchema;
}

/**
 * The response envelope (contract 2.1) whose `data` is `data` or null. With `data` null the envelope
 * is the one of the shared error response, whose body the contract does not show.
 *
 * @example
 * envelopeJsonSchema(dataJsonSchema(op)) // { type: "object", required: ["code", "msg", "data", …], … }
 */
export function envelopeJsonSchema(data: JsonSchema | null): JsonSchema {
  const envelope = z.toJSONSchema(envelopeSchema, { target, io: "output" }) as JsonSchema & {
    properties: Record<string, JsonSchema>;
  };
  const { $schema: _dialect, ...member } = data ?? {};
  envelope.properties["data"] = data === null ? { type: "null" } : { anyOf: [member, { type: "null" }] };
  return envelope;
}

/** A copy without `$schema` keys: inside an OpenAPI 3.1 document the dialect is the document's. */
export function withoutDialect<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutDialect) as T;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (key !== "$schema") out[key] = withoutDialect(v);
  return out as T;
}
