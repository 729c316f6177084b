import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { startMcp } from "./helpers.js";

const KEY = "sk-mcp-test-secret-progress1";

describe("skillsync mcp: a run's progress", () => {
  it("sends progress notifications to a client that asks for them", async () => {
    const { emulator } = await emulatorWithClient({ keys: [{ key: KEY }], latencyMs: 300 });
    const db = freshWarehouseUrl("sqlite");
    const mcp = await startMcp(["--db", db, "--max-credits", "10", "--concurrency", "1"], {
      SKILL_API_KEY: KEY,
      SKILL_API_BASE_URL: emulator.url,
    });
    const seen: { progress: number; total?: number | undefined; message?: string | undefined }[] = [];
    const r = await mcp.client.callTool(
      {
        name: "run",
        arguments: {
          pipeline: "marketplace-search",
          params: { keyword: ["a", "b", "c", "d"] },
          maxCredits: 10,
        },
      },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p) },
    );
    expect(r.isError).not.toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)).toMatchObject({ total: 4, message: expect.stringMatching(/credits spent/) });
  }, 60_000);
});
