import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { userTables } from "../engine/publish/read-table.js";
import type { ToolContext } from "./context.js";
import { toJson } from "./reply.js";
import { tableNamed } from "./tools/tables.js";

const TABLE_URI_PREFIX = "skillsync://tables/";

/** Each table's schema as a resource: columns with types, key and row count (no rows). */
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
      const raw = String(variables["name"] ?? "");
      const d = await tableNamed(ctx, decodeURIComponent(raw), false);
      const { example: _omitted, ...schema } = d;
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: toJson(schema) }] };
    },
  );
}
