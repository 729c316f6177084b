import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ValidationError } from "../core/errors.js";
import type { TableDescription } from "../engine/publish/describe-table.js";
import { userTables } from "../engine/publish/read-table.js";
import type { ToolContext } from "./context.js";
import { toJson } from "./reply.js";
import { tableNamed } from "./tools/tables.js";

const TABLE_URI_PREFIX = "skillsync://tables/";

/**
 * The table a resource URI names, or a JSON-RPC invalid-params error (-32602) that names it and says
 * where the tables are listed: the client asked for a resource that is not there, nothing failed.
 */
async function tableOfUri(ctx: ToolContext, raw: string): Promise<TableDescription> {
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {
    // A malformed escape: no table has that name either.
  }
  try {
    return await tableNamed(ctx, name, false);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new McpError(
      ErrorCode.InvalidParams,
      `no table "${name.slice(0, 100)}" in the warehouse; resources/list lists the tables (${TABLE_URI_PREFIX}<name>), as does the list_tables tool`,
      { uri: `${TABLE_URI_PREFIX}${raw.slice(0, 300)}` },
    );
  }
}

/**
 * Each table's schema as a resource: columns with types, key and row count (no rows). Reading a
 * table that is not there is invalid params (-32602).
 */
export function registerTableResources(server: McpServer, ctx: ToolContext): void {
  const template = new ResourceTemplate(`${TABLE_URI_PREFIX}{name}`, {
    list: async () => ({
      resources: (await userTables(ctx.warehouse)).map((name) => ({
        uri: `${TABLE_URI_PREFIX}${encodeURIComponent(name)}`,
        name,
        description: `the schema of table ${name}`,
        mimeType: "application/json",
      })),
    }),
  });
  server.registerResource(
    "table-schema",
    template,
    {
      description: "A warehouse table's schema: columns with types, key, row count",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const d = await tableOfUri(ctx, String(variables["name"] ?? ""));
      const { example: _omitted, ...schema } = d;
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: toJson(schema) }] };
    },
  );
}
