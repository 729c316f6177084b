import { gunzipSync } from "node:zlib";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { SkillClient } from "../../../connectors/skill-api/client.js";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { redactDeep } from "../../../core/redact.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { envelope, FakeServer } from "./fake-server.js";

// Issue 20: an upstream that echoes the Authorization header into its trace id got `Bearer sk-…`
// stored verbatim in skillsync_calls.trace_id. Every value from the API now passes the redaction
// error messages pass, before anything stores or logs it.
const KEY = "sk-live-Echo/0123456789abcdefXYZ";

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe("redactDeep", () => {
  it("redacts strings at any depth and keeps unchanged values as they are", () => {
    const clean = { a: [1, { b: "x" }] };
    expect(redactDeep(clean)).toBe(clean);
    expect(redactDeep({ t: "Bearer abcdefghijk", l: [{ v: "Bearer 0123456789" }] })).toEqual({
      t: "Bearer [redacted]",
      l: [{ v: "Bearer [redacted]" }],
    });
  });
});

describe.each(WAREHOUSE_KINDS)("stored API values on %s", (kind) => {
  it.skipIf(unavailable(kind))(
    "a key echoed in the trace id, a record and an escaped record is stored nowhere",
    async () => {
      const server = await FakeServer.start();
      servers.push(server);
      const escaped = KEY.replaceAll("/", "\\/");
      const product = (i: number, title: string) => ({ asin: `B00${i}`, title, price: 1, position: i });
      const data = {
        total: 3,
        keyword: "k",
        products: [product(1, `echo Bearer ${KEY}`), product(2, `raw ${KEY}`), product(3, "plain")],
      };
      // The escaped form: `\/` in the JSON text, the key itself once parsed.
      const text = JSON.stringify(envelope(data, { traceId: `Bearer ${KEY}` })).replace(
        '"plain"',
        `"${escaped.replaceAll("\\", "\\\\").replaceAll("\\\\/", "\\/")}"`,
      );
      expect(text).toContain("\\/");
      server.script({ body: text, headers: { "content-type": "application/json" } });
      const client = new SkillClient({ baseUrl: server.baseUrl, apiKey: KEY, retryBaseDelayMs: 1 });
      const w = await openWarehouse(freshWarehouseUrl(kind));
      try {
        const s = await runPipelines({
          warehouse: w,
          client,
          pipelines: [loadPipeline("marketplace-search")],
          params: { keyword: ["k"] },
        });
        expect(s.status).toBe("succeeded");
        const calls = await sql<{ trace_id: string }>`select trace_id from skillsync_calls`.execute(w.db);
        expect(calls.rows.map((r) => r.trace_id)).toEqual(["Bearer [redacted]"]);
        const stored = await sql<{ body: Buffer | Uint8Array; trace_id: string }>`
          select body, trace_id from skillsync_responses`.execute(w.db);
        const everything = [
          JSON.stringify(calls.rows),
          ...stored.rows.map((r) => gunzipSync(Buffer.from(r.body)).toString("utf8") + r.trace_id),
          JSON.stringify((await sql`select * from marketplace_search_results`.execute(w.db)).rows),
          JSON.stringify((await sql`select * from skillsync_runs`.execute(w.db)).rows),
        ].join("\n");
        expect(everything).toContain("[redacted]");
        expect(everything).not.toContain(KEY);
        expect(everything).not.toContain(escaped);
      } finally {
        await w.close();
        await client.close();
      }
    },
  );
});
