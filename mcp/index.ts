/** `skillsync mcp`: the warehouse's tables and pipelines as MCP tools, inside a credit ceiling. */
export { createMcpServer } from "./server.js";
export { serveStdio } from "./stdio.js";
