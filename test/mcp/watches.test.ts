import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { runPipelines } from "../../engine/run/runner.js";
import { migrateToLatest } from "../../store/migrate.js";
import { afterTest } from "../helpers/after-test.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { changedBetween, publishedPatents } from "../helpers/legal-status.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { type McpSession, startMcp } from "./helpers.js";

const D = "2026-11-08";
const D7 = "2026-11-15";
const TABLE = "patent_legal_status";
const WATCH_TOOLS = ["create_watch", "list_alerts", "list_watches", "remove_watch"];

/** A call that must succeed, its structuredContent valid (ajv, strict) against the tool's declared outputSchema. */
async function checkedCaller(mcp: McpSession) {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
  const { tools } = await mcp.client.listTools();
  for (const name of WATCH_TOOLS) {
    const tool = tools.find((t) => t.name === name);
    expect(tool?.description, name).toMatch(/^Free: /);
    expect(tool?.outputSchema?.["$schema"], name).toBe("http://json-schema.org/draft-07/schema#");
  }
  const validators = new Map(tools.map((t) => [t.name, ajv.compile(t.outputSchema!)]));
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  return async (name: string, args: Record<string, unknown> = {}): Promise<any> => {
    const r = await mcp.client.callTool({ name, arguments: args });
    const text = (r.content as { text: string }[])[0]!.text;
    expect(r.isError, `${name}: ${text}`).toBeFalsy();
    const validate = validators.get(name)!;
    validate(r.structuredContent);
    expect(validate.errors ?? [], `${name}: ${text.slice(0, 500)}`).toEqual([]);
    expect(r.structuredContent).toEqual(JSON.parse(text));
    return r.structuredContent;
  };
}

/** The patents' legal status loaded into `w` from the emulator, asking everything again. */
async function load(
  w: Warehouse,
  client: Awaited<ReturnType<typeof emulatorWithClient>>["client"],
  patents: string[],
) {
  const s = await runPipelines({
    warehouse: w,
    client,
    pipelines: [loadPipeline("patent-legal-status")],
    params: { patent: patents },
    refresh: true,
  });
  expect(s.status).toBe("succeeded");
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`skillsync mcp watch tools on ${kind}`, () => {
    it("creates a watch (no credit), lists it, lists the alerts of a reload, refuses bad input as the server does, removes it", async () => {
      const { emulator, client } = await emulatorWithClient({ date: D });
      const db = freshWarehouseUrl(kind);
      const w = await openWarehouse(db);
      afterTest(() => w.close());
      await migrateToLatest(w);
      const patents = publishedPatents(60, D);
      await load(w, client, patents);
      const credits = emulator.ledger().totalCredits;

      // A server that may spend nothing: watching costs no credit.
      const mcp = await startMcp(["--db", db, "--max-credits", "0"], {
        SKILL_API_KEY: DEMO_KEY,
        SKILL_API_BASE_URL: emulator.url,
      });
      const call = await checkedCaller(mcp);
      const watched = patents.filter((_, i) => i % 2 === 1);
      const made = await call("create_watch", { name: "status", table: TABLE, keys: { list: watched } });
      expect(made.watch).toMatchObject({ name: "status", table: TABLE, keys: watched.length });
      expect(made.warnings.join("\n")).toMatch(/alerts are recorded only/);
      expect((await call("list_watches")).watches).toEqual([made.watch]);
      expect(await call("list_alerts")).toEqual({ alerts: [] });
      expect(emulator.ledger().totalCredits).toBe(credits);

      emulator.setDate(D7);
      await load(w, client, patents);
      const paid = emulator.ledger().totalCredits;
      const expected = changedBetween(watched, D, D7);
      expect(expected.length).toBeGreaterThan(1);
      const { alerts } = await call("list_alerts", { since: "last", watch: "status" });
      expect(new Set(alerts.map((a: { key: string }) => a.key))).toEqual(new Set(expected));
      expect(alerts[0]).not.toHaveProperty("suppressed");
      expect((await call("list_alerts", { limit: 1 })).alerts).toEqual(alerts.slice(0, 1));

      const refused = async (name: string, args: Record<string, unknown>, pattern: RegExp) => {
        const r = await mcp.call(name, args);
        expect(r.isError, r.text).toBe(true);
        expect(r.json.error.code).toBe("VALIDATION");
        expect(r.json.error.message).toMatch(pattern);
      };
      await refused(
        "create_watch",
        { name: "x", table: TABLE, colums: ["legal_status"] },
        /invalid create_watch:\n {2}colums: unknown member "colums" \(did you mean "columns"\?\)/,
      );
      await refused(
        "create_watch",
        { name: "x", table: TABLE, notify: { digst: "none" } },
        /notify\.digst: unknown member "digst" \(did you mean "digest"\?\)/,
      );
      await refused(
        "create_watch",
        { name: "x", table: TABLE, keys: { file: "/etc/passwd" } },
        /keys\.file: the server reads no files: give the keys in the request, keys\.list or keys\.sql/,
      );
      await refused(
        "create_watch",
        { name: "x", table: "no_such_table" },
        /table: "no_such_table" is .*a table that keeps history/,
      );
      await refused(
        "create_watch",
        { name: "status", table: TABLE },
        /name: a watch named "status" already exists: remove it first \(remove_watch\)/,
      );
      await refused(
        "list_alerts",
        { since: "yesterday" },
        /since: "yesterday" is neither a date \(YYYY-MM-DD\) nor a load id .* nor "last" \(the latest load that alerted\)/,
      );
      await refused("remove_watch", { name: "nope" }, /no watch named "nope"; watches: status/);
      expect((await call("list_watches")).watches).toHaveLength(1);

      expect(await call("remove_watch", { name: "status" })).toEqual({ removed: "status" });
      expect(await call("list_watches")).toEqual({ watches: [] });
      // Its alerts stay: they happened.
      expect((await call("list_alerts", { watch: "status" })).alerts).toEqual(alerts);
      // Only the loads were paid for.
      expect(emulator.ledger().totalCredits).toBe(paid);
    }, 120_000);
  });
}
