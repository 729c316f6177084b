import { sql } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../../core/errors.js";
import { type Answer, type LoadTarget, loadAnswers } from "../../../../engine/load/load-response.js";
import {
  type FeedChange,
  historyTables,
  readChangeFeed,
} from "../../../../engine/publish/console/change-feed.js";
import { readKeyTimeline } from "../../../../engine/publish/console/key-timeline.js";
import { preparePipelines } from "../../../../engine/run/prepare.js";
import { openLoad } from "../../../../store/loads.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../../helpers/warehouses.js";
import { firstCall, pipelineFrom, rows } from "../../fixtures.js";

const pipeline = pipelineFrom(`name: watched
skill: patent-legal-status-data
records:
  path: data
  table: watched_status
  key: [pn]
  mode: history
  columns:
    pn: text
    status: text
    fee: number
    observed_at: { from: $observedAt, type: timestamp }
  children:
    - path: events
      table: watched_events
      columns: { event_date: date, event_code: text, description: text }
`);

interface Rec {
  pn: string;
  status: string;
  fee?: number;
  events?: { event_date: string; event_code: string; description: string }[];
}

const day = (d: number) => new Date(Date.UTC(2026, 10, d)).toISOString();
const PUB = { event_date: "2026-01-02", event_code: "PUB", description: "published" };
const GRANT = { event_date: "2026-05-06", event_code: "GRANT", description: "granted" };
const HOSTILE = 'watched_status"; drop table watched_status; --';

/** Three loads of four keys: A1 moves in status and fee each time, B1 gains an event, D1 appears. */
const LOADS: Rec[][] = [
  [
    { pn: "A1", status: "pending", fee: 10, events: [PUB] },
    { pn: "B1", status: "granted", fee: 5, events: [PUB] },
    { pn: "C1", status: "pending" },
  ],
  [
    { pn: "A1", status: "granted", fee: 12.5, events: [PUB] },
    { pn: "B1", status: "granted", fee: 5, events: [PUB, GRANT] },
    { pn: "C1", status: "pending" },
  ],
  [
    { pn: "A1", status: "lapsed", fee: 0, events: [PUB, GRANT] },
    { pn: "D1", status: "pending", fee: 1 },
  ],
];

describe.each(WAREHOUSE_KINDS)("the console's changes on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    let n = 0;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      const [c] = await preparePipelines(w, [pipeline], {});
      for (const [i, data] of LOADS.entries()) {
        const target: LoadTarget = { ...c!, loadId: await openLoad(w, `run-${i}`, pipeline.name) };
        const answer: Answer = {
          call: firstCall(pipeline.skill, `h${n++}`, { i }),
          data: { data },
          receivedAt: day(1 + 7 * i),
          ledger: { kind: "none" },
        };
        await loadAnswers(w, target, `run-${i}`, [answer]);
      }
      return () => w.close();
    });

    /** The view's rows in the feed's order, read directly on the owner's connection. */
    const viewRows = () =>
      rows<Record<string, unknown>>(
        w,
        `select pn, change, column_name, old_value, new_value, load_id from watched_status_changes
         order by load_id desc, changed_at desc, pn, column_name`,
      );
    const asView = (c: FeedChange) => ({
      pn: c.key,
      change: c.change,
      column_name: c.column,
      old_value: c.from,
      new_value: c.to,
      load_id: c.loadId,
    });

    it("lists the history tables with their key, versions of the recent loads and last change", async () => {
      const [versions] = await rows<{ n: unknown }>(w, "select count(*) as n from watched_status");
      const [last] = await rows<{ t: unknown }>(w, "select max(valid_from) as t from watched_status");
      expect(await historyTables(w)).toEqual([
        {
          table: "watched_status",
          kind: "history",
          keyColumns: ["pn"],
          changes: Number(versions!.n),
          lastChangeAt: new Date(
            String(last!.t instanceof Date ? last!.t.toISOString() : last!.t),
          ).toISOString(),
        },
      ]);
    });

    it("pages the feed newest first, every change once, and the pages join to the view", async () => {
      const all = await viewRows();
      const first = await readChangeFeed(w, "watched_status", { limit: 1000 });
      expect(first.next).toBeNull();
      expect(first.changes.map(asView)).toEqual(all);
      expect(first.changes[0]!.at).toBe(day(15));
      const paged: FeedChange[] = [];
      let before: string | undefined;
      let pages = 0;
      do {
        const page = await readChangeFeed(w, "watched_status", { limit: 2, before });
        expect(new Set(page.changes.map((c) => `${c.loadId} ${c.key}`)).size).toBeLessThanOrEqual(2);
        paged.push(...page.changes);
        before = page.next ?? undefined;
        pages++;
      } while (before !== undefined);
      // A page holds the changes of 2 versions (a key added or changed by a load).
      const versions = new Set(all.map((r) => `${r["load_id"]} ${r["pn"]}`));
      expect(pages).toBe(Math.ceil(versions.size / 2));
      expect(paged).toEqual(first.changes);
      const loads = paged.map((c) => c.loadId);
      expect(loads).toEqual([...loads].sort((a, b) => b - a));
    });

    it("draws a key's timeline from exactly its history rows, with its events", async () => {
      const history = await rows<{ status: string; fee: unknown; load_id: number; valid_from: unknown }>(
        w,
        "select status, fee, load_id, valid_from from watched_status where pn = 'A1' order by valid_from",
      );
      const t = await readKeyTimeline(w, "watched_status", "A1");
      expect(t).toBeDefined();
      expect(t!.numeric).toEqual(["fee"]);
      // `extra` (the members no column took) is content too: a version changes when it does.
      expect(t!.text).toEqual(["status", "extra"]);
      expect(t!.points).toEqual(
        history.map((h) => ({
          loadId: Number(h.load_id),
          at: new Date(h.valid_from instanceof Date ? h.valid_from : String(h.valid_from)).toISOString(),
          values: { status: h.status, fee: Number(h.fee), extra: null },
        })),
      );
      expect(t!.events).toEqual([
        { at: "2026-01-02", code: "PUB", description: "published" },
        { at: "2026-05-06", code: "GRANT", description: "granted" },
      ]);
      expect((await readKeyTimeline(w, "watched_status", "A1", { loads: 2 }))!.points).toEqual(
        t!.points.slice(1),
      );
      expect(await readKeyTimeline(w, "watched_status", "Z9")).toBeUndefined();
    });

    it("refuses a table that keeps no history and a hostile name, and builds no SQL from them", async () => {
      for (const table of ["nope", "watched_events", "watched_status_changes", HOSTILE]) {
        await expect(readChangeFeed(w, table, { limit: 10 })).rejects.toThrow(ValidationError);
        expect(await readKeyTimeline(w, table, "A1")).toBeUndefined();
      }
      await expect(readChangeFeed(w, "watched_status", { limit: 10, before: "1; drop" })).rejects.toThrow(
        ValidationError,
      );
      expect(await readKeyTimeline(w, "watched_status", "A1' or '1'='1")).toBeUndefined();
      expect((await rows(w, "select pn from watched_status_current")).length).toBe(4);
    });

    it("reads a change view (load_id and previous_<column>) by its composite key", async () => {
      await sql`create table prices (keyword text, asin text, load_id integer, observed_at text, price numeric)`.execute(
        w.db,
      );
      await sql`insert into prices values ('desk', 'B1', 1, '2026-11-01T00:00:00.000Z', 100),
        ('desk', 'B1', 2, '2026-11-08T00:00:00.000Z', 90), ('desk', 'B2', 2, '2026-11-08T00:00:00.000Z', 30),
        ('desk', 'B1', 3, '2026-11-15T00:00:00.000Z', 90), ('lamp', 'B1', 3, '2026-11-15T00:00:00.000Z', 20)`.execute(
        w.db,
      );
      await sql`create view price_history as select keyword, asin, load_id, observed_at, price,
        lag(price) over (partition by keyword, asin order by load_id) as previous_price,
        lag(load_id) over (partition by keyword, asin order by load_id) as previous_load_id
        from prices`.execute(w.db);
      const tables = await historyTables(w);
      expect(tables.find((t) => t.table === "price_history")).toMatchObject({
        kind: "view",
        keyColumns: ["keyword", "asin"],
        // Not counted for the listing: a view's changes are worked out over its whole source.
        changes: null,
        lastChangeAt: null,
      });
      const feed = await readChangeFeed(w, "price_history", { limit: 10 });
      expect(
        feed.changes.map((c) => [
          c.loadId,
          c.key,
          c.change,
          c.column,
          c.from && Number(c.from),
          c.to && Number(c.to),
        ]),
      ).toEqual([
        [3, '["lamp","B1"]', "added", null, null, null],
        [2, '["desk","B1"]', "changed", "price", 100, 90],
        [2, '["desk","B2"]', "added", null, null, null],
        [1, '["desk","B1"]', "added", null, null, null],
      ]);
      const t = await readKeyTimeline(w, "price_history", '["desk","B1"]');
      expect(t!.numeric).toEqual(expect.arrayContaining(["price"]));
      expect(t!.points.map((p) => [p.loadId, p.values["price"]])).toEqual([
        [1, 100],
        [2, 90],
        [3, 90],
      ]);
      expect(await readKeyTimeline(w, "price_history", "desk")).toBeUndefined();
    });
  });
});
