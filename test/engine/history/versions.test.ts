import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { type Answer, type LoadTarget, loadAnswers } from "../../../engine/load/load-response.js";
import { preparePipelines } from "../../../engine/run/prepare.js";
import { loadsOfRun, openLoad } from "../../../store/loads.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { firstCall, pipelineFrom, rows } from "../fixtures.js";

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
    legal_date: date
    observed_at: { from: $observedAt, type: timestamp }
  children:
    - path: events
      table: watched_events
      columns: { code: text }
`);

interface Rec {
  pn: string;
  status: string;
  legalDate?: string;
  events?: { code: string }[];
}

const day = (d: number) => new Date(Date.UTC(2026, 10, d)).toISOString();
const toMs = (v: unknown) => (v instanceof Date ? v.getTime() : Date.parse(String(v)));

describe.each(WAREHOUSE_KINDS)("history tables on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    let target: LoadTarget;
    let n = 0;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      const [c] = await preparePipelines(w, [pipeline], {});
      target = { ...c!, loadId: await openLoad(w, "run-1", pipeline.name) };
      return () => w.close();
    });

    const answer = (data: Rec[], at: string): Answer => ({
      call: firstCall(pipeline.skill, `h${n++}`, { patentNumber: data.map((r) => r.pn).join(",") }),
      data: { data },
      receivedAt: at,
      ledger: { kind: "none" },
    });
    const load = (data: Rec[], at: string, t = target) => loadAnswers(w, t, "run-1", [answer(data, at)]);
    const versions = () =>
      rows<{ pn: string; status: string; valid_from: unknown; valid_to: unknown; load_id: number }>(
        w,
        "select pn, status, valid_from, valid_to, load_id from watched_status order by pn, valid_from",
      );
    const first: Rec[] = [
      { pn: "A1", status: "pending", events: [{ code: "PUB" }] },
      { pn: "B1", status: "granted", events: [{ code: "PUB" }, { code: "GRANT" }] },
      { pn: "C1", status: "pending" },
    ];

    it("writes a version only when a key's row or its children change, and closes the one before", async () => {
      expect((await load(first, day(1))).rows).toBe(3 + 3);
      // The same answers a day later: only the time they were seen differs.
      expect((await load(first, day(2))).rows).toBe(0);
      const changed: Rec[] = [
        { pn: "A1", status: "granted", events: [{ code: "PUB" }] },
        { pn: "B1", status: "granted", events: [{ code: "PUB" }, { code: "GRANT" }, { code: "LAPSE" }] },
        { pn: "C1", status: "pending" },
      ];
      await load(changed, day(8));

      const v = await versions();
      expect(v.map((r) => [r.pn, r.status, r.valid_to === null])).toEqual([
        ["A1", "pending", false],
        ["A1", "granted", true],
        ["B1", "granted", false],
        ["B1", "granted", true],
        ["C1", "pending", true],
      ]);
      // A key's versions meet: the one before ends where the next begins.
      expect(toMs(v[0]!.valid_to)).toBe(toMs(v[1]!.valid_from));
      expect(toMs(v[1]!.valid_from)).toBe(Date.parse(day(8)));
      expect(v.every((r) => r.load_id === target.loadId)).toBe(true);

      const events = await rows<{ pn: string; code: string; current: number }>(
        w,
        "select pn, code, case when valid_to is null then 1 else 0 end as current from watched_events order by pn, valid_from, position",
      );
      expect(events.filter((e) => e.pn === "B1" && Number(e.current) === 1).map((e) => e.code)).toEqual([
        "PUB",
        "GRANT",
        "LAPSE",
      ]);
      expect(await rows(w, "select pn, status from watched_status_current order by pn")).toEqual([
        { pn: "A1", status: "granted" },
        { pn: "B1", status: "granted" },
        { pn: "C1", status: "pending" },
      ]);
      const [current] = await rows<{ n: unknown }>(
        w,
        "select count(*) as n from watched_events_current where pn = 'B1'",
      );
      expect(Number(current!.n)).toBe(3);
    });

    it("says per key which column changed, old and new, with the load; added keys once", async () => {
      await load(first, day(1));
      const second = await openLoad(w, "run-2", pipeline.name);
      await load(
        [
          { pn: "A1", status: "lapsed", legalDate: "20261105", events: [{ code: "PUB" }] },
          { pn: "B1", status: "granted", events: [{ code: "PUB" }] },
          { pn: "D1", status: "pending" },
        ],
        day(8),
        { ...target, loadId: second },
      );
      const changes = await rows<Record<string, unknown>>(
        w,
        `select pn, change, column_name, old_value, new_value, load_id from watched_status_changes
         where load_id = ${second} order by pn, column_name`,
      );
      expect(changes).toEqual([
        {
          pn: "A1",
          change: "changed",
          column_name: "legal_date",
          old_value: null,
          new_value: "2026-11-05",
          load_id: second,
        },
        {
          pn: "A1",
          change: "changed",
          column_name: "status",
          old_value: "pending",
          new_value: "lapsed",
          load_id: second,
        },
        {
          pn: "B1",
          change: "changed",
          column_name: "watched_events",
          old_value: "2",
          new_value: "1",
          load_id: second,
        },
        { pn: "D1", change: "added", column_name: null, old_value: null, new_value: null, load_id: second },
      ]);
      // C1 was not in the answer: neither unchanged nor closed (an answer need not name every key).
      expect((await loadsOfRun(w, "run-2"))[0]).toMatchObject({
        versionsNew: 3,
        closed: 2,
        unchanged: 0,
        rowsInserted: 3 + 2,
      });
    });

    it("does not write an answer older than a key's current version", async () => {
      await load(first, day(5));
      const stale = await load([{ pn: "A1", status: "withdrawn" }], day(3));
      expect(stale.rows).toBe(0);
      expect((await versions()).filter((r) => r.pn === "A1").map((r) => r.status)).toEqual(["pending"]);
    });

    it("keeps at most one current version per key in the database itself", async () => {
      await load(first, day(1));
      const insert = `insert into watched_status (pn, status, valid_from, valid_to) values ('A1', 'x', '${day(9)}', null)`;
      await expect(rows(w, insert)).rejects.toThrow(/unique|UNIQUE/);
    });
  });
});
