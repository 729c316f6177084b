import { describe, expect, it } from "vitest";
import { SkillClient } from "../../connectors/skill-api/client.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { runPipelines } from "../../engine/run/runner.js";
import { loadsOfRun } from "../../store/loads.js";
import { afterTest } from "../helpers/after-test.js";
import { DEMO_KEY } from "../helpers/emulator.js";
import { changedBetween, publishedPatents } from "../helpers/legal-status.js";
import { unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { startTestServer, type TestServer, waitForRun } from "./helpers.js";

const D = "2026-11-08";
const D7 = "2026-11-15";
const TABLE = "patent_legal_status";

/** The patents loaded through the server (POST /runs), as a user of the add-on would. */
async function firstLoad(t: TestServer, patents: string[]): Promise<void> {
  const post = await t.call("POST", "/runs", {
    pipeline: "patent-legal-status",
    params: { patent: patents },
    maxCredits: 200,
  });
  expect(post.status, post.text).toBe(202);
  expect((await waitForRun(t, post.json.runId)).status).toBe("succeeded");
}

/** A load of the same patents beside the server, asking everything again (as `skillsync run --refresh`). */
async function refreshLoad(t: TestServer, patents: string[]): Promise<number> {
  const client = new SkillClient({ baseUrl: t.emulator.url, apiKey: DEMO_KEY, retryBaseDelayMs: 10 });
  afterTest(() => client.close());
  const s = await runPipelines({
    warehouse: t.warehouse,
    client,
    pipelines: [loadPipeline("patent-legal-status")],
    params: { patent: patents },
    refresh: true,
  });
  expect(s.status).toBe("succeeded");
  return (await loadsOfRun(t.warehouse, s.runId))[0]!.id;
}

/** A GET made unique: each signature is single-use, and a test may ask the same twice in a second. */
const nonce = () => `nonce=${Math.random().toString(36).slice(2)}`;

const keysOf = (alerts: { key: string }[]) => new Set(alerts.map((a) => a.key));

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`watches and alerts on the server, ${kind}`, () => {
    it("creates a watch (no credit), lists it, lists exactly the watched keys a reload changed, backfills, deletes", async () => {
      const t = await startTestServer(kind, { maxCredits: 500 }, { date: D });
      const patents = publishedPatents(80, D);
      await firstLoad(t, patents);
      const watched = patents.filter((_, i) => i % 2 === 0);
      const credits = t.emulator.ledger().totalCredits;

      const made = await t.call("POST", "/watches", {
        name: "status",
        table: TABLE,
        keys: { list: watched },
        notify: { digest: "none" },
      });
      expect(made.status, made.text).toBe(201);
      expect(made.json).toMatchObject({
        watch: { name: "status", table: TABLE, keys: watched.length, spec: { allKeys: false } },
        backfilled: 0,
      });
      expect(made.json.warnings.join("\n")).toMatch(/alerts are recorded only/);
      // Making a watch sends nothing to the API.
      expect(t.emulator.ledger().totalCredits).toBe(credits);
      const listed = await t.call("GET", "/watches");
      expect(listed.status).toBe(200);
      expect(listed.json.watches).toEqual([made.json.watch]);
      expect((await t.call("GET", "/alerts")).json).toEqual({ alerts: [] });

      // A week later on the emulator's clock, the same patents loaded again.
      t.emulator.setDate(D7);
      const second = await refreshLoad(t, patents);
      const reloaded = t.emulator.ledger().totalCredits;
      const expected = changedBetween(watched, D, D7);
      expect(expected.length).toBeGreaterThan(2);
      const got = await t.call("GET", `/alerts?${nonce()}`);
      expect(got.status, got.text).toBe(200);
      const alerts = got.json.alerts;
      expect(keysOf(alerts)).toEqual(new Set(expected));
      expect(new Set(alerts.map((a: { id: string }) => a.id)).size).toBe(alerts.length);
      for (const a of alerts) {
        expect(a).toMatchObject({ watch: "status", table: TABLE, change: "changed", loadId: second });
        expect(a).not.toHaveProperty("suppressed");
        expect(Object.keys(a).sort()).toEqual(
          [
            "changedAt",
            "column",
            "createdAt",
            "id",
            "key",
            "loadId",
            "new",
            "old",
            "runId",
            "table",
            "watch",
            "change",
          ].sort(),
        );
      }
      expect((await t.call("GET", "/alerts?since=last&watch=status")).json.alerts).toEqual(alerts);
      expect((await t.call("GET", `/alerts?since=${second}`)).json.alerts).toEqual([]);
      expect((await t.call("GET", `/alerts?since=${second - 1}&limit=2`)).json.alerts).toEqual(
        alerts.slice(0, 2),
      );
      expect((await t.call("GET", "/alerts?watch=other")).json.alerts).toEqual([]);

      // Every key, and the changes already loaded too: exactly the patents the emulator changed.
      const all = await t.call("POST", "/watches", { name: "all-status", table: TABLE, backfill: true });
      expect(all.status, all.text).toBe(201);
      expect(all.json.watch).toMatchObject({ keys: 0, spec: { allKeys: true } });
      const backfilled = (await t.call("GET", "/alerts?watch=all-status")).json.alerts;
      expect(all.json.backfilled).toBe(backfilled.length);
      expect(keysOf(backfilled)).toEqual(new Set(changedBetween(patents, D, D7)));
      expect(t.emulator.ledger().totalCredits).toBe(reloaded);

      const removed = await t.call("DELETE", "/watches/status");
      expect(removed.status, removed.text).toBe(200);
      expect(removed.json).toEqual({ removed: "status" });
      const again = await t.call("DELETE", `/watches/status?${nonce()}`);
      expect(again.status).toBe(404);
      expect(again.json.error).toMatchObject({ code: "UNKNOWN_WATCH" });
      expect(again.json.error.message).toMatch(/no watch "status" \(see GET \/watches\)/);
      expect(
        (await t.call("GET", `/watches?${nonce()}`)).json.watches.map((w: { name: string }) => w.name),
      ).toEqual(["all-status"]);
      // Its alerts stay: they happened.
      expect((await t.call("GET", `/alerts?watch=status&${nonce()}`)).json.alerts).toEqual(alerts);
    }, 120_000);

    it("refuses unsigned requests, bad bodies, a taken name, an unknown table, keys.file and a bad since, writing nothing", async () => {
      const t = await startTestServer(kind, { maxCredits: 500 }, { date: D });
      const patents = publishedPatents(3, D);
      await firstLoad(t, patents);
      const credits = t.emulator.ledger().totalCredits;

      for (const [method, path] of [
        ["GET", "/alerts"],
        ["GET", "/watches"],
        ["POST", "/watches"],
        ["DELETE", "/watches/x"],
      ] as const) {
        const body = method === "POST" ? JSON.stringify({ name: "x", table: TABLE }) : undefined;
        const res = await fetch(`${t.server.url}${path}`, { method, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(((await res.json()) as { error: { reason: string } }).error.reason).toBe("SIGNATURE_MISSING");
      }

      const refused = async (body: unknown, status: number, pattern: RegExp) => {
        const r = await t.call("POST", "/watches", body);
        expect(r.status, r.text).toBe(status);
        expect(r.json.error.message).toMatch(pattern);
        return r;
      };
      await refused("{not json", 400, /the body is not JSON/);
      const typo = await refused(
        { name: "x", table: TABLE, colums: ["status"] },
        400,
        /invalid POST \/watches:\n {2}colums: unknown member "colums" \(did you mean "columns"\?\)/,
      );
      expect(typo.json.error.issues[0].path).toEqual(["colums"]);
      await refused(
        { name: "x", table: TABLE, when: { fell_bye: "10%" } },
        400,
        /when\.fell_bye: unknown member "fell_bye" \(did you mean "fell_by"\?\)/,
      );
      await refused({ table: TABLE }, 400, /name: /);
      await refused({ name: "Bad Name", table: TABLE }, 400, /name: "Bad Name" must be 1 to 63 of a-z/);
      await refused(
        { name: "x", table: "patent_legal_statu" },
        400,
        /table: "patent_legal_statu" is .*a table that keeps history.*\(did you mean "patent_legal_status"\?\)/,
      );
      await refused(
        { name: "x", table: TABLE, columns: ["nope"] },
        400,
        /columns\[0\]: "nope" is not a column/,
      );
      await refused(
        { name: "x", table: TABLE, when: { fell_by: "10%" }, columns: ["legal_status"] },
        400,
        /when\.fell_by: cannot apply: legal_status is not numeric/,
      );
      await refused(
        { name: "x", table: TABLE, keys: { file: "/etc/passwd" } },
        400,
        /keys\.file: the server reads no files: give the keys in the request, keys\.list or keys\.sql/,
      );
      await refused({ name: "x", table: TABLE, keys: { list: ["ok", ""] } }, 400, /keys\.list\[1\]/);
      expect((await t.call("GET", "/watches")).json.watches).toEqual([]);

      // The keys as a query over the warehouse; then the same name again.
      const bySql = await t.call("POST", "/watches", {
        name: "x",
        table: TABLE,
        keys: { sql: `select publication_number from ${TABLE}` },
      });
      expect(bySql.status, bySql.text).toBe(201);
      expect(bySql.json.watch.keys).toBe(patents.length);
      const taken = await refused(
        { name: "x", table: TABLE },
        409,
        /a watch named "x" already exists: remove it first \(DELETE \/watches\/x\)/,
      );
      expect(taken.json.error.code).toBe("WATCH_EXISTS");
      expect(taken.json.error.issues[0].path).toEqual(["name"]);
      expect((await t.call("GET", `/watches?${nonce()}`)).json.watches).toHaveLength(1);

      const badSince = await t.call("GET", "/alerts?since=yesterday");
      expect(badSince.status).toBe(400);
      expect(badSince.json.error.message).toMatch(
        /since: "yesterday" is neither a date \(YYYY-MM-DD\) nor a load id .* nor "last" \(the latest load that alerted\)/,
      );
      const bigLimit = await t.call("GET", "/alerts?limit=10001");
      expect(bigLimit.status).toBe(400);
      expect(bigLimit.json.error.issues[0].path).toEqual(["limit"]);
      const unknownParam = await t.call("GET", "/alerts?wacth=x");
      expect(unknownParam.status).toBe(400);
      expect((await t.call("PUT", "/watches", {})).status).toBe(405);
      expect((await t.call("POST", "/alerts", {})).status).toBe(405);
      expect((await t.call("GET", "/alerts/x")).status).toBe(404);
      // Checking, refusing and making watches sent nothing to the API.
      expect(t.emulator.ledger().totalCredits).toBe(credits);
    }, 90_000);
  });
}
