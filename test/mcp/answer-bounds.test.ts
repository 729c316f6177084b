import { readdirSync, readFileSync } from "node:fs";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { migrateToLatest } from "../../store/migrate.js";
import {
  freshWarehouseUrl,
  unavailable,
  WAREHOUSE_KINDS,
  type WarehouseKind,
} from "../helpers/warehouses.js";
import { startMcp, startRawMcp } from "./helpers.js";

// A server that only reads (--max-credits 0) still needs a key and a base URL to start.
const ENV = { SKILL_API_KEY: "sk-mcp-test-secret-bounds-0a9e", SKILL_API_BASE_URL: "http://127.0.0.1:9" };
const MB = 1024 * 1024;

/** A thousand rows of a megabyte of text and of bytes each (2 GB in all), made by the database. */
const HOSTILE: Record<WarehouseKind, string> = {
  sqlite:
    "with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000) " +
    "select i, printf('%.*c', 1000000, 'x') as t, randomblob(1000000) as b from n",
  postgres:
    "select i, repeat('x', 1000000) as t, decode(repeat('ab', 1000000), 'hex') as b from generate_series(1, 1000) i",
};

/** The highest resident set a process had so far (VmHWM), bytes. */
function peakRss(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) * 1024;
}

/** The processes whose parent is `pid` (the SQLite reader of a server). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function warehouseWith(kind: WarehouseKind): Promise<string> {
  const db = freshWarehouseUrl(kind);
  const w = await openWarehouse(db);
  try {
    await migrateToLatest(w);
    await sql`create table huge (id integer primary key, body text)`.execute(w.db);
    await sql`insert into huge (id, body) values (1, ${"h".repeat(5 * MB)})`.execute(w.db);
  } finally {
    await w.close();
  }
  return db;
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`skillsync mcp answers bounded in bytes on ${kind}`, () => {
    it("answers a hostile query within 1 MiB, stays under 300 MB and goes on answering", async () => {
      const db = await warehouseWith(kind);
      const mcp = await startMcp(["--db", db, "--max-credits", "0"], ENV);
      await mcp.call("list_tables");
      const baseline = peakRss(mcp.pid);
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        const q = await mcp.call("query", { sql: HOSTILE[kind], maxRows: 1000 });
        const ms = Math.round(performance.now() - started);
        const server = peakRss(mcp.pid);
        const readers = childrenOf(mcp.pid).map(peakRss);
        console.log(
          `hostile query on ${kind}, round ${round + 1}: answered in ${ms} ms, ${q.text.length} characters, ` +
            `${q.json.rowCount} rows; peak RSS: server ${(server / MB).toFixed(0)} MB (${(baseline / MB).toFixed(0)} MB before)` +
            (readers.length
              ? `, SQLite reader ${readers.map((r) => (r / MB).toFixed(0)).join(", ")} MB`
              : ""),
        );
        expect(q.isError).toBe(false);
        expect(q.json).toMatchObject({ truncated: true, truncatedBy: "bytes" });
        expect(q.json.rowCount).toBeGreaterThan(2);
        expect(q.json.cellsCut).toBe(q.json.rowCount * 2);
        expect(q.json.note).toMatch(/stopped before 1,048,576 bytes of rows/);
        expect(q.json.note).toMatch(/cut: each ends with "…\[cut: first K of N bytes\]"/);
        expect(q.json.rows[0].t).toMatch(/^x+…\[cut: first \d+ of 1000000 bytes\]$/);
        expect(q.json.rows[0].b).toMatch(/…\[cut: first \d+ of 1000000 bytes, base64\]$/);
        expect(q.text.length).toBeLessThan(1.2 * MB);
        expect(server).toBeLessThan(300 * MB);
        for (const r of readers) expect(r).toBeLessThan(300 * MB);
        const next = await mcp.call("query", { sql: "select 1 as one" });
        expect(next.json.rows).toEqual([{ one: 1 }]);
      }

      const described = await mcp.call("describe_table", { table: "huge" });
      expect(described.json.example.body).toMatch(/^h+…\[cut: first \d+ of 5242880 bytes\]$/);
      expect(described.json.exampleNote).toMatch(/1 cell\(s\) longer than 65,536 bytes were cut/);
      const read = await mcp.client.readResource({ uri: "skillsync://tables/huge" });
      const text = read.contents[0] && "text" in read.contents[0] ? read.contents[0].text : "";
      expect(JSON.parse(text)).toMatchObject({ table: "huge", rows: 1 });
      expect(text.length).toBeLessThan(10_000);

      const run = await mcp.call("run", {
        pipeline: "marketplace-search",
        params: { keyword: ["a"] },
        maxCredits: 1,
      });
      expect(run.json.error.message).toMatch(/this server only reads \(--max-credits 0\)/);
    }, 120_000);
  });
}

describe("skillsync mcp: a request line over 1 MiB", () => {
  it("is answered with -32600 and the request's id through the SDK's client, and the session goes on", async () => {
    const mcp = await startMcp(["--db", freshWarehouseUrl("sqlite"), "--max-credits", "0"], ENV);
    const huge = `select '${"q".repeat(2 * MB)}' as big`;
    const err = await mcp.client
      .callTool({ name: "query", arguments: { sql: huge } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32600);
    expect((err as McpError).message).toMatch(/over this server's limit of 1,048,576 bytes for one message/);
    const next = await mcp.call("query", { sql: "select 2 as two" });
    expect(next.json.rows).toEqual([{ two: 2 }]);
  }, 60_000);

  it("of 50 MB is dropped as it streams and answered (with its id when either end shows it), and the next request too", async () => {
    const { child, send, answer } = startRawMcp(freshWarehouseUrl("sqlite"), ENV);
    await send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    );
    expect((await answer(1)).result?.serverInfo.name).toBe("skillsync");
    await send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));

    // The id last, as the SDK's own client writes it: read from the line's end.
    const last = `{"method":"tools/call","params":{"name":"query","arguments":{"sql":"select '${"z".repeat(50 * MB)}'"}},"jsonrpc":"2.0","id":2}`;
    await send(last);
    const refused = await answer(2);
    expect(refused.error).toMatchObject({ code: -32600 });
    expect(refused.error!.message).toMatch(/the request is 52,428,9\d\d bytes, over this server's limit/);

    // The id first: read from the line's start.
    const first = `{"jsonrpc":"2.0","id":"big-3","method":"tools/call","params":{"name":"query","arguments":{"sql":"select '${"z".repeat(50 * MB)}'"}}}`;
    await send(first);
    expect((await answer("big-3")).error).toMatchObject({ code: -32600 });

    // The id between 50 MB of params and the method: neither end shows it, so the answer's id is null.
    const hidden = `{"jsonrpc":"2.0","params":{"name":"query","arguments":{"sql":"select '${"z".repeat(50 * MB)}'"}},"id":5,"method":"tools/call"}`;
    await send(hidden);
    expect((await answer(null)).error).toMatchObject({ code: -32600 });

    await send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "query", arguments: { sql: "select 4 as four" } },
      }),
    );
    const ok = await answer(4);
    expect(JSON.parse(ok.result!.content[0]!.text).rows).toEqual([{ four: 4 }]);
    // Two 50 MB lines went through without being held: the process never grew by their size.
    expect(peakRss(child.pid!)).toBeLessThan(300 * MB);
  }, 120_000);
});
