import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { redact } from "../core/redact.js";

/** Values JSON cannot carry as they are: big integers as text when they would lose digits, bytes as base64. */
function jsonSafe(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") {
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }
  if (value && typeof value === "object" && "type" in value && value.type === "Buffer" && "data" in value) {
    return { base64: Buffer.from(value.data as number[]).toString("base64") };
  }
  return value;
}

/** Redacted JSON: every tool answer passes through here, so no registered secret reaches an agent. */
export function toJson(value: unknown): string {
  return redact(JSON.stringify(value, jsonSafe));
}

/**
 * A tool's answer: one JSON text block, and the same JSON as `structuredContent` (what the tool's
 * `outputSchema` describes), so both carry exactly the same redacted, JSON-safe values.
 */
function jsonResult(value: unknown): CallToolResult {
  const text = toJson(value);
  return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) };
}

/** A refused or failed call: its stable code and a message that says what to do, never a stack. */
function errorResult(err: unknown): CallToolResult {
  const code = err && typeof err === "object" && "code" in err ? String(err.code) : "INTERNAL";
  const message = err instanceof Error ? err.message : String(err);
  return { content: [{ type: "text", text: toJson({ error: { code, message } }) }], isError: true };
}

/** Runs a tool's body and turns what it throws into an error result. */
export async function answer(body: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return jsonResult(await body());
  } catch (err) {
    return errorResult(err);
  }
}
