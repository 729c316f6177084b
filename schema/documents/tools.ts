import { catalog, type Operation, operationPath, TOOL_LIST_VERSION } from "../catalog.js";
import { dataJsonSchema, envelopeJsonSchema, type JsonSchema, requestJsonSchema } from "./json-schema.js";

/** One tool of the tool list (contract 4.1): an operation as an AI agent sees it. */
interface ToolEntry {
  name: string;
  title: string;
  description: string;
  endpoint: string;
  method: "POST";
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

export interface ToolList {
  version: string;
  authentication: { type: "apiKey"; in: "header"; name: "Authorization"; format: "Bearer <API_KEY>" };
  tools: ToolEntry[];
}

// Contract 4.1: every tool consumes credits and an agent must not retry a paid call on its own.
const BILLING_NOTE = "Consumes account credits; do not retry a paid call automatically.";

function toolEntry(op: Operation): ToolEntry {
  return {
    name: op.tool,
    title: op.title,
    description: `${op.description} ${BILLING_NOTE}`,
    endpoint: operationPath(op.slug),
    method: "POST",
    inputSchema: requestJsonSchema(op),
    outputSchema: envelopeJsonSchema(dataJsonSchema(op)),
  };
}

/**
 * The tool list document (version 1.0.0, contract 4.1, 5, 9): each documented operation with its
 * `svc_` tool name, endpoint path (relative to the base URL), and self-contained input and output
 * JSON Schemas (the output is the response envelope around the operation's `data`).
 *
 * @example
 * buildToolList().tools.find((t) => t.name === "svc_patent_claims")?.endpoint
 * // "/api/skill-api/v1/skills/patent-claims/run"
 */
export function buildToolList(): ToolList {
  return {
    version: TOOL_LIST_VERSION,
    authentication: { type: "apiKey", in: "header", name: "Authorization", format: "Bearer <API_KEY>" },
    tools: [...catalog.values()].map(toolEntry),
  };
}
