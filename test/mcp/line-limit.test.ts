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
    const call = (id: number) => `{"jsonrpc":"2.0","method":"m","id":${id}}\n`;
    const [one, two] = [call(1), call(2)];
    for (const piece of [one + two.slice(0, 30), two.slice(30), long.slice(0, 50), long.slice(50), call(3)]) {
      limit.write(Buffer.from(piece));
    }
    limit.end();
    await new Promise((resolve) => limit.on("end", resolve));
    expect(out).toEqual([call(1), call(2), call(3)]);
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

  it("answers a line that is not JSON with -32700 and JSON that is no JSON-RPC message with -32600, skips a blank one, and passes the rest", async () => {
    const refused: string[] = [];
    const limit = new LineLimit((answer) => refused.push(answer), 100);
    const out: string[] = [];
    limit.on("data", (chunk: Buffer) => out.push(chunk.toString()));
    const good = '{"jsonrpc":"2.0","method":"m","id":4}\n';
    for (const line of ["this is not json\n", "\r\n", '{"id":"x","hello":1}\n', "[1,2]\n", good]) {
      limit.write(Buffer.from(line));
    }
    limit.end();
    await new Promise((resolve) => limit.on("end", resolve));
    expect(out).toEqual([good]);
    expect(refused.map((r) => JSON.parse(r))).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: expect.stringMatching(/^Parse error: the line is not JSON \(/) },
      },
      {
        jsonrpc: "2.0",
        id: "x",
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
      },
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
      },
    ]);
  });
});
