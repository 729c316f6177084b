import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { SkillClient } from "../../connectors/skill-api/client.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { readChanges } from "../../engine/publish/changes.js";
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

/** The changes of one load, from the view queried directly, in the endpoint's order. */
async function fromView(t: TestServer, load: number): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(`${TABLE}_changes`)}
    where load_id = ${load} order by changed_at, publication_number, column_name`.execute(t.warehouse.db);
  return rows;
}

/** GET /changes' page sizes (its `limit`): one page holds every change, or a few rows per page. */
const WHOLE_PAGES = { limit: 1000 };
const PAGES_OF_FIVE = { limit: 5 };

/** Every page of GET /changes/:table for `since`, `size.limit` rows per page, joined. */
async function allPages(
  t: TestServer,
  since: string,
  size: { limit: number },
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
): Promise<{ rows: any[]; pages: any[] }> {
  const pages = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = await t.call(
      "GET",
      `/changes/${TABLE}?since=${encodeURIComponent(since)}&limit=${size.limit}&offset=${offset}`,
    );
    expect(page.status, page.text).toBe(200);
    pages.push(page.json);
    offset = page.json.nextOffset;
  }
  return { rows: pages.flatMap((p) => p.rows), pages };
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

const ids = (rows: { publication_number: string }[]) => new Set(rows.map((r) => r.publication_number));

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`GET /changes/:table on ${kind}`, () => {
    it("pages the latest load's changes, changes since a date or a load, and a latest load that changed nothing gives none", async () => {
      // Legal status costs a credit a patent.
      const t = await startTestServer(kind, { maxCredits: 500 }, { date: D });
      const patents = publishedPatents(150, D);
      const post = await t.call("POST", "/runs", {
        pipeline: "patent-legal-status",
        params: { patent: patents },
        maxCredits: 200,
      });
      expect(post.status, post.text).toBe(202);
      const first = await waitForRun(t, post.json.runId);
      expect(first.status).toBe("succeeded");
      const firstLoad = (await loadsOfRun(t.warehouse, first.warehouseRunId))[0]!.id;

      // Only the first load: every patent was added by it, and it is the latest.
      const added = await allPages(t, "last", WHOLE_PAGES);
      expect(added.pages[0]).toMatchObject({ table: TABLE, since: "last", loadId: firstLoad, total: 150 });
      expect(added.rows.every((r) => r.change === "added" && r.load_id === firstLoad)).toBe(true);

      // A week later on the emulator's clock, the same patents loaded again.
      t.emulator.setDate(D7);
      const secondLoad = await refreshLoad(t, patents);
      const changed = changedBetween(patents, D, D7);
      expect(changed.length).toBeGreaterThan(3);
      expect(changed.length).toBeLessThan(75);

      const last = await allPages(t, "last", PAGES_OF_FIVE);
      expect(last.pages.length).toBeGreaterThan(1);
      const direct = await fromView(t, secondLoad);
      expect(last.pages[0]).toMatchObject({
        table: TABLE,
        since: "last",
        loadId: secondLoad,
        offset: 0,
        limit: 5,
        total: direct.length,
        truncated: false,
      });
      expect(last.pages[0].columns).toEqual([
        { name: "publication_number", type: "text" },
        { name: "change", type: "text" },
        { name: "column_name", type: "text" },
        { name: "old_value", type: "text" },
        { name: "new_value", type: "text" },
        { name: "load_id", type: "integer" },
        { name: "changed_at", type: "timestamp" },
      ]);
      // Exactly the patents the emulator changed, page after page in the view's order, none twice.
      expect(ids(last.rows)).toEqual(new Set(changed));
      const key = (r: Record<string, unknown>) =>
        `${r["publication_number"]}|${r["column_name"]}|${r["new_value"]}`;
      expect(last.rows.map(key)).toEqual(direct.map(key));
      expect(last.rows.every((r) => r.change === "changed" && r.load_id === secondLoad)).toBe(true);
      // The engine's read (what `skillsync changes --since last` prints) is the same list.
      expect((await readChanges(t.warehouse, { table: TABLE, since: "last" })).map(key)).toEqual(
        direct.map(key),
      );

      // Since the first load: the second load's changes; since the day of the first: its additions too.
      const sinceFirst = await allPages(t, String(firstLoad), WHOLE_PAGES);
      expect(sinceFirst.rows.map(key)).toEqual(direct.map(key));
      expect(sinceFirst.pages[0].loadId).toBeUndefined();
      // The day of the first load (not today's date: the test may run across midnight).
      const firstDay = new Date(added.rows[0].changed_at).toISOString().slice(0, 10);
      const sinceFirstDay = await allPages(t, firstDay, WHOLE_PAGES);
      expect(sinceFirstDay.rows).toHaveLength(150 + direct.length);
      const dayAfter = new Date(Date.parse(last.rows.at(-1).changed_at) + 86_400_000)
        .toISOString()
        .slice(0, 10);
      expect((await allPages(t, dayAfter, WHOLE_PAGES)).pages[0]).toMatchObject({
        total: 0,
        rows: [],
        nextOffset: null,
      });

      // Some columns only, in the order asked.
      const narrow = await t.call(
        "GET",
        `/changes/${TABLE}?since=last&columns=column_name,publication_number`,
      );
      expect(narrow.json.columns.map((c: { name: string }) => c.name)).toEqual([
        "column_name",
        "publication_number",
      ]);
      expect(Object.keys(narrow.json.rows[0])).toEqual(["column_name", "publication_number"]);

      // A third load finds every patent unchanged: it wrote no version, and its changes are none.
      const thirdLoad = await refreshLoad(t, patents);
      const none = await t.call("GET", `/changes/${TABLE}?since=last`);
      expect(none.json).toMatchObject({ loadId: thirdLoad, total: 0, rows: [], nextOffset: null });
      expect(await readChanges(t.warehouse, { table: TABLE, since: "last" })).toEqual([]);

      // GET /tables says which tables keep history.
      const tables = await t.call("GET", "/tables");
      const history = tables.json.tables
        .filter((x: { history?: boolean }) => x.history)
        .map((x: { name: string }) => x.name);
      expect(history).toEqual([TABLE]);
    }, 60_000);

    it("refuses unknown tables (404), tables without history and bad queries (400), saying why", async () => {
      const t = await startTestServer(kind, {}, { date: D });
      const post = await t.call("POST", "/runs", {
        pipeline: "patent-legal-status",
        params: { patent: publishedPatents(3, D) },
      });
      expect((await waitForRun(t, post.json.runId)).status).toBe("succeeded");

      const unknown = await t.call("GET", "/changes/no_such_table?since=last");
      expect(unknown.status).toBe(404);
      expect(unknown.json.error).toMatchObject({ code: "UNKNOWN_TABLE" });
      expect(unknown.json.error.message).toMatch(
        /"no_such_table" keeps no history \(no view no_such_table_changes\).*history tables here: patent_legal_status/,
      );
      const child = await t.call("GET", "/changes/patent_legal_events?since=last");
      expect(child.status).toBe(400);
      expect(child.json.error.message).toMatch(/"patent_legal_events" keeps no history/);
      const noSince = await t.call("GET", `/changes/${TABLE}`);
      expect(noSince.status).toBe(400);
      expect(noSince.json.error.message).toMatch(/since: say which changes: since=last/);
      const badSince = await t.call("GET", `/changes/${TABLE}?since=yesterday`);
      expect(badSince.status).toBe(400);
      expect(badSince.json.error.message).toMatch(
        /since: "yesterday" is neither a date \(YYYY-MM-DD\) nor a load id .* nor "last"/,
      );
      const badColumn = await t.call("GET", `/changes/${TABLE}?since=last&columns=nope`);
      expect(badColumn.status).toBe(400);
      expect(badColumn.json.error.message).toMatch(
        /unknown column\(s\) "nope"; the changes of patent_legal_status have publication_number, change/,
      );
      const post2 = await t.call("POST", `/changes/${TABLE}?since=last`, {});
      expect(post2.status).toBe(405);
      expect((await t.call("GET", "/changes")).status).toBe(404);
    }, 60_000);
  });
}
