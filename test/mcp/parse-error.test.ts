import { describe, expect, it } from "vitest";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { startRawMcp } from "./helpers.js";

// A server that only reads (--max-credits 0) still needs a key and a base URL to start.
const ENV = { SKILL_API_KEY: "sk-mcp-test-secret-parse-5c1d", SKILL_API_BASE_URL: "http://127.0.0.1:9" };

describe("skillsync mcp: a line that is not a JSON-RPC message", () => {
  it("is answered with -32700 (not JSON) or -32600 (no JSON-RPC message), and the next request is served", async () => {
    const { send, answer, initialize } = startRawMcp(freshWarehouseUrl("sqlite"), ENV);
    expect((await initialize()).result?.serverInfo.name).toBe("skillsync");

    await send("this is {not json");
    const parse = await answer(null);
    expect(parse.error).toMatchObject({ code: -32700, message: expect.stringMatching(/^Parse error: /) });

    await send(JSON.stringify({ id: 7, hello: "world" }));
    expect((await answer(7)).error).toMatchObject({ code: -32600 });

    await send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "tools/call",
        params: { name: "query", arguments: { sql: "select 8 as eight" } },
      }),
    );
    const ok = await answer(8);
    expect(JSON.parse(ok.result!.content[0]!.text).rows).toEqual([{ eight: 8 }]);
  }, 60_000);
});
