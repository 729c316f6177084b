/** `skillsync mcp`: the warehouse's tables and pipelines as MCP tools, inside a credit ceiling. */
export type { McpOptions } from "./context.js";
export { createMcpServer, SERVER_INFO, type SkillsyncMcp } from "./server.js";
export { serveStdio } from "./stdio.js";
