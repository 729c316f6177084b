import { gunzipSync } from "node:zlib";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { SkillClient } from "../../../connectors/skill-api/client.js";
import { interpretResponse } from "../../../connectors/skill-api/response.js";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { redactDeep, registerSecret } from "../../../core/redact.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { genericData } from "../../../schema/catalog.js";
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

describe("interpretResponse", () => {
  it("gives the body as received unless a key hid behind \\u escapes, which it redacts in the parsed strings", () => {
    registerSecret(KEY);
    const plain = { status: 200, headers: {}, body: JSON.stringify(envelope({ title: "plain" })) };
    expect(interpretResponse("x-y", plain, genericData).text).toBe(plain.body);
    // Every character of the key as a \u escape: no text search for the key can see it.
    const hidden = [...KEY].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
    const escaped = { ...plain, body: JSON.stringify(envelope({ title: "TITLE" })).replace("TITLE", hidden) };
    const out = interpretResponse("x-y", escaped, genericData);
    expect(out.text).toBeNull();
    expect(out.data).toEqual({ title: "[redacted]" });
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
        const stored = await sql<{ body: Buffer | Uint8Array; trace_id: string; body_form: string }>`
          select body, trace_id, body_form from skillsync_responses`.execute(w.db);
        // The escaped key was redacted in the parsed strings: the text as received is not kept.
        expect(stored.rows.map((r) => r.body_form)).toEqual(["data"]);
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

describe.each(WAREHOUSE_KINDS)("answers kept as received on %s", (kind) => {
  it.skipIf(unavailable(kind))(
    "the body is stored byte for byte (a key in it redacted) and a later run loads it for nothing",
    async () => {
      const server = await FakeServer.start();
      servers.push(server);
      const product = (i: number, title: string) => ({ asin: `B00${i}`, title, price: 1.5, position: i });
      const data = { total: 2, keyword: "k", products: [product(1, `raw ${KEY}`), product(2, "plain")] };
      // Indented, members in the service's own order: not what JSON.stringify of the value gives.
      const sent = JSON.stringify(envelope(data, { traceId: "t-1" }), null, 1);
      server.script({ body: sent });
      const client = new SkillClient({ baseUrl: server.baseUrl, apiKey: KEY, retryBaseDelayMs: 1 });
      const w = await openWarehouse(freshWarehouseUrl(kind));
      try {
        const run = () =>
          runPipelines({
            warehouse: w,
            client,
            pipelines: [loadPipeline("marketplace-search")],
            params: { keyword: ["k"] },
          });
        expect((await run()).status).toBe("succeeded");
        const stored = await sql<{ body: Buffer | Uint8Array; body_form: string }>`
          select body, body_form from skillsync_responses`.execute(w.db);
        expect(stored.rows.map((r) => r.body_form)).toEqual(["envelope"]);
        expect(gunzipSync(Buffer.from(stored.rows[0]!.body)).toString("utf8")).toBe(
          sent.replace(KEY, "[redacted]"),
        );
        const again = await run();
        expect(again.counters.callsCached).toBe(1);
        expect(server.requests).toHaveLength(1);
        const titles = await sql<{ title: string }>`
          select title from marketplace_search_results order by position`.execute(w.db);
        expect(titles.rows.map((r) => r.title)).toEqual(["raw [redacted]", "plain"]);
      } finally {
        await w.close();
        await client.close();
      }
    },
  );
});
