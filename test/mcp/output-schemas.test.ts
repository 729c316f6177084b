import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Ajv, type ValidateFunction } from "ajv";
import { describe, expect, it } from "vitest";
import { emulatorWithClient } from "../helpers/emulator.js";
import {
  freshWarehouseUrl,
  unavailable,
  WAREHOUSE_KINDS,
  type WarehouseKind,
} from "../helpers/warehouses.js";
import { type McpSession, startMcp } from "./helpers.js";

const KEY = "sk-mcp-test-secret-0c5e81aa";
const TOOLS = ["budget", "describe_table", "list_pipelines", "list_tables", "plan", "query", "run", "runs"];
/** The watch tools need a history table: test/mcp/watches.test.ts calls each and checks its answer with ajv. */
const WATCH_TOOLS = ["create_watch", "list_alerts", "list_watches", "remove_watch"];

/** A long cell, so that query's answer says cellsCut and a note. */
const longCell = (kind: WarehouseKind) =>
  kind === "sqlite" ? "select printf('%.*c', 70000, 'x') as long" : "select repeat('x', 70000) as long";

/**
 * The declared output schemas as a JSON Schema validator (not zod) reads them: each compiled by ajv
 * (checked against the draft-07 meta-schema the SDK's conversion of zod names), strict, every error.
 */
async function validators(mcp: McpSession): Promise<Map<string, ValidateFunction>> {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
  const { tools } = await mcp.client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS, ...WATCH_TOOLS].sort());
  const out = new Map<string, ValidateFunction>();
  for (const t of tools) {
    expect(t.outputSchema, t.name).toMatchObject({ type: "object" });
    expect(t.outputSchema?.["$schema"], t.name).toBe("http://json-schema.org/draft-07/schema#");
    out.set(t.name, ajv.compile(t.outputSchema!));
  }
  return out;
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`skillsync mcp output schemas on ${kind}`, () => {
    it("declares an outputSchema on every tool; every tool's structuredContent validates against it with ajv; an unknown table resource is -32602", async () => {
      const { emulator } = await emulatorWithClient({ keys: [{ key: KEY }] });
      const mcp = await startMcp(
        ["--db", freshWarehouseUrl(kind), "--max-credits", "10", "--concurrency", "1"],
        { SKILL_API_KEY: KEY, SKILL_API_BASE_URL: emulator.url },
      );
      const schemas = await validators(mcp);
      const called = new Set<string>();

      /** A real call: its structuredContent is the text's JSON and valid against the declared schema. */
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const r = await mcp.client.callTool({ name, arguments: args });
        const text = (r.content as { text: string }[])[0]!.text;
        expect(r.isError, `${name}: ${text}`).toBeFalsy();
        const validate = schemas.get(name)!;
        const valid = validate(r.structuredContent);
        expect(validate.errors ?? [], `${name}: ${text.slice(0, 500)}`).toEqual([]);
        expect(valid).toBe(true);
        expect(r.structuredContent).toEqual(JSON.parse(text));
        called.add(name);
        // biome-ignore lint/suspicious/noExplicitAny: answers of eight shapes, read as the JSON they are
        return r.structuredContent as Record<string, any>;
      };

      const pipelines = await call("list_pipelines");
      expect(pipelines["pipelines"].length).toBeGreaterThan(10);
      const plain = await call("plan", { pipeline: "marketplace-search", params: { keyword: ["a", "b"] } });
      expect(plain).toMatchObject({ credits: 2, note: "nothing was sent" });
      // A windowed plan (windows) and a batched one (items): the optional members.
      const windowed = await call("plan", {
        pipeline: "patent-search-by-date",
        params: { q: "battery", start: "2026-01-01", end: "2026-03-31" },
      });
      expect(windowed["pipelines"][0].windows.length).toBeGreaterThan(1);
      const batched = await call("plan", {
        pipeline: "patent-bibliography",
        params: { patent: ["US11234567B2", "EP3456789A1"] },
      });
      expect(batched["pipelines"][0].items).toMatchObject({ asked: 2, toPay: 2 });

      const run = await call("run", {
        pipeline: "marketplace-search",
        params: { keyword: ["a", "b", "c"] },
        maxCredits: 2,
      });
      expect(run).toMatchObject({ status: "ceiling", credits: { spent: 2, ceiling: 2, serverLeft: 8 } });

      const tables = await call("list_tables");
      expect(tables["tables"]).toContainEqual(
        expect.objectContaining({ name: "marketplace_search_results" }),
      );
      const described = await call("describe_table", { table: "marketplace_search_results" });
      expect(described["example"]).not.toBeNull();
      const cut = await call("query", { sql: "select * from marketplace_search_results", maxRows: 1 });
      expect(cut).toMatchObject({ rowCount: 1, truncated: true, truncatedBy: "rows" });
      const long = await call("query", { sql: longCell(kind) });
      expect(long).toMatchObject({ rowCount: 1, truncated: false, cellsCut: 1 });

      const runs = await call("runs");
      expect(runs["runs"][0]).toMatchObject({ runId: run["runId"], status: "ceiling", trigger: "mcp" });
      const one = await call("runs", { runId: run["runId"] });
      expect(one["run"]).toMatchObject({ runId: run["runId"], finishedAt: expect.any(String) });
      const budget = await call("budget");
      expect(budget["server"]).toMatchObject({ limit: 10, spent: 2, remaining: 8 });
      expect([...called].sort()).toEqual(TOOLS);

      // A refusal is an error result: its text says why, and it needs no structuredContent.
      const refused = await mcp.client.callTool({ name: "plan", arguments: { pipeline: "nope" } });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toBeUndefined();

      // The toolkit's own tables are no resources either; a malformed escape names no table.
      for (const name of ["nope", "skillsync_runs", "%E0%A4"]) {
        const uri = `skillsync://tables/${name}`;
        const err = await mcp.client.readResource({ uri }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, uri).toBeInstanceOf(McpError);
        expect((err as McpError).code, uri).toBe(ErrorCode.InvalidParams);
        expect((err as McpError).message, uri).toContain(`no table "${name}"`);
        expect((err as McpError).message, uri).toMatch(/resources\/list lists the tables.*list_tables/);
      }
      const known = await mcp.client.readResource({ uri: "skillsync://tables/marketplace_search_results" });
      expect(known.contents).toHaveLength(1);
    }, 60_000);
  });
}
