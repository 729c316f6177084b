import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { startMcp } from "./helpers.js";

// Issue 47: the SDK's McpError puts "MCP error -32602: " into the message it sends, and the
// client's McpError prefixes it again: "MCP error -32602: MCP error -32602: …".
describe("skillsync mcp refusing a request", () => {
  it("says MCP error -32602 once: an unknown table resource, an unknown resource, a tool's bad arguments", async () => {
    const { emulator } = await emulatorWithClient();
    const mcp = await startMcp(["--db", freshWarehouseUrl("sqlite"), "--max-credits", "0"], {
      SKILL_API_KEY: DEMO_KEY,
      SKILL_API_BASE_URL: emulator.url,
    });
    for (const uri of ["skillsync://tables/no_such_table", "skillsync://nothing/here"]) {
      const err = await mcp.client.readResource({ uri }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, uri).toBeInstanceOf(McpError);
      expect((err as McpError).code, uri).toBe(ErrorCode.InvalidParams);
      expect((err as McpError).message.match(/MCP error/g), (err as McpError).message).toHaveLength(1);
    }
    const bad = await mcp.call("query", { sql: 42 });
    expect(bad.isError).toBe(true);
    expect(bad.text.match(/MCP error/g), bad.text).toHaveLength(1);
    expect(bad.text).toMatch(
      /^MCP error -32602: Input validation error: .*expected string, received number at sql/,
    );
  });
});
