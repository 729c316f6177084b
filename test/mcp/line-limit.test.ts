import { describe, expect, it } from "vitest";
import { LineLimit, lastId, requestIdOf } from "../../mcp/line-limit.js";

describe("the MCP server's request line limit", () => {
  it("finds the request's id at the top level of the line's start, not inside params", () => {
    expect(requestIdOf('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"sql":"sel')).toBe(7);
    expect(requestIdOf(' { "id" : "a\\"b", "method": "x"')).toBe('a"b');
    expect(requestIdOf('{"params":{"id":9,"sql":"x"},"id":3,"method":"m"}')).toBe(3);
    expect(requestIdOf('{"method":"tools/call","params":{"arguments":{"sql":"select')).toBeNull();
    expect(requestIdOf('{"id":12')).toBeNull(); // the number may go on
    expect(requestIdOf('{"id":null,"method":"x"}')).toBeNull();
    expect(requestIdOf("not json")).toBeNull();
  });

  it("finds an id written last, as the SDK's client writes it, at the line's end", () => {
    expect(lastId('…"arguments":{"sql":"select 1"}},"jsonrpc":"2.0","id":3}\n')).toBe(3);
    expect(lastId('…,"id":"req-1"}')).toBe("req-1");
    expect(lastId('…"params":{"x":1,"id":4}}')).toBeNull();
    expect(lastId('…"sql":"\\"id\\":5}')).toBeNull();
  });

  it("passes each line through whole, however it was split, and answers a long one instead", async () => {
    const refused: string[] = [];
    const limit = new LineLimit((answer) => refused.push(answer), 100);
    const out: string[] = [];
    limit.on("data", (chunk: Buffer) => out.push(chunk.toString()));
    const long = `{"id":5,"params":"${"p".repeat(500)}"}\n`;
    for (const piece of ['{"id":1}\n{"id"', ":2}\n", long.slice(0, 50), long.slice(50), '{"id":3}\n']) {
      limit.write(Buffer.from(piece));
    }
    limit.end();
    await new Promise((resolve) => limit.on("end", resolve));
    expect(out).toEqual(['{"id":1}\n', '{"id":2}\n', '{"id":3}\n']);
    expect(refused).toHaveLength(1);
    expect(JSON.parse(refused[0]!)).toMatchObject({
      jsonrpc: "2.0",
      id: 5,
      error: {
        code: -32600,
        message: expect.stringMatching(/the request is 521 bytes, over this server's limit of 100 bytes/),
      },
    });
  });
});
