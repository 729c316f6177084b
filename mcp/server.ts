import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { pipelineColumnTypes } from "../engine/publish/read-table.js";
import { type McpOptions, oneAtATime, type ToolContext } from "./context.js";
import { registerTableResources } from "./resources.js";
import { registerPipelineTools } from "./tools/pipelines.js";
import { registerRunTool } from "./tools/run.js";
import { registerStatusTools } from "./tools/status.js";
import { registerTableTools } from "./tools/tables.js";
import { registerWatchTools } from "./tools/watches.js";

const SERVER_INFO = { name: "skillsync", version: "0.1.0" };

const INSTRUCTIONS = [
  "skillsync loads a credit-billed API into a SQL warehouse.",
  "Read first: list_tables, describe_table and query are free.",
  "To get more data: list_pipelines, then plan (free) to see the credits, then run with a maxCredits ceiling.",
  "All runs through this server share one credit total for its whole life; budget shows what is left.",
  "A run stopped at its ceiling keeps what it loaded and resumes when run again with the same params.",
  "To be told what moved in a history table: create_watch (free), then list_alerts after later loads.",
].join(" ");

export interface SkillsyncMcp {
  server: McpServer;
  /** Resolves once the run or query in progress (if any) has finished; abort `signal` first to hurry a run. */
  settled(): Promise<void>;
}

/**
 * The MCP server of a warehouse: its tools and table resources, not yet connected to a transport.
 * The caller has migrated the warehouse and owns it and the client (closing them is its job, after
 * `settled`).
 *
 * @example const { server } = createMcpServer({ warehouse, client, maxCredits: 50, pipelines, prices });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(o: McpOptions): SkillsyncMcp {
  const ctx: ToolContext = {
    ...o,
    byName: new Map(o.pipelines.map((p) => [p.name, p])),
    total: {
      scope: `mcp:${randomUUID()}`,
      limit: o.maxCredits,
      label: "total of this MCP server (--max-credits)",
    },
    columnTypes: pipelineColumnTypes(o.pipelines),
    exclusive: oneAtATime(),
  };
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  registerPipelineTools(server, ctx);
  registerRunTool(server, ctx);
  registerTableTools(server, ctx);
  registerStatusTools(server, ctx);
  registerWatchTools(server, ctx);
  registerTableResources(server, ctx);
  return { server, settled: () => ctx.exclusive(async () => {}) };
}
