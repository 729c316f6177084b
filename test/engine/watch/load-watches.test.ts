import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { type Answer, type LoadTarget, loadAnswers } from "../../../engine/load/load-response.js";
import { preparePipelines } from "../../../engine/run/prepare.js";
import { defineWatch } from "../../../engine/watch/index.js";
import type { WatchFile } from "../../../schema/watch.js";
import { listAlerts } from "../../../store/alerts.js";
import { openLoad } from "../../../store/loads.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { firstCall, pipelineFrom } from "../fixtures.js";

// A key of two columns, a child table, and one column of each type a watch compares as text.
const pipeline = pipelineFrom(`name: watched-rights
skill: patent-legal-status-data
records:
  path: data
  table: watched_rights
  key: [office, pn]
  mode: history
  columns:
    office: text
    pn: text
    status: text
    fee: number
    annuity: decimal
    claims: integer
    in_force: boolean
    legal_date: date
    checked: timestamp
    meta: json
    observed_at: { from: $observedAt, type: timestamp }
  children:
    - path: events
      table: watched_right_events
      columns: { code: text, on: date }
`);

interface Rec {
  office: string;
  pn: string;
  status: string;
  fee: number;
  annuity: number;
  claims: number;
  inForce: boolean;
  legalDate: string;
  checked: string;
  meta: Record<string, unknown>;
  events: { code: string; on: string }[];
}

const rec = (office: string, pn: string, o: Partial<Rec> = {}): Rec => ({
  office,
  pn,
  status: "granted",
  fee: 100,
  annuity: 0.1 + 0.2,
  claims: 12,
  inForce: true,
  legalDate: "2026-03-02",
  checked: "2026-11-01T06:00:00Z",
  meta: { b: 1, a: [1, 2] },
  events: [{ code: "PUB", on: "2025-01-15" }],
  ...o,
});

const FIRST: Rec[] = [rec("EP", "1"), rec("EP", "2"), rec("US", "1"), rec("US", "2"), rec("US", "3")];
// A week later: EP-1 lapses, EP-2 gains an event (listed first: the others move down), US-1's fee
// rises 12 %, US-2's 5 %, US-3 is unchanged, US-4 is new. Unchanged values are given again as before.
const SECOND: Rec[] = [
  rec("EP", "1", { inForce: false, status: "lapsed" }),
  rec("EP", "2", { events: [{ code: "OPPO", on: "2026-11-03" }, ...rec("EP", "2").events] }),
  rec("US", "1", { fee: 112 }),
  rec("US", "2", { fee: 105 }),
  rec("US", "3"),
  rec("US", "4"),
];

// When each load's answers arrived: a week apart, the times its versions begin (data, not waits).
const WEEK_1 = "2026-11-01T06:00:00.000Z";
const WEEK_2 = "2026-11-08T06:00:00.000Z";
const WEEK_3 = "2026-11-15T06:00:00.000Z";

const TYPED: [string, WatchFile][] = [
  ["lapsed", { table: "watched_rights", columns: ["in_force"], when: { to: "false" } }],
  ["fee-up", { table: "watched_rights", columns: ["fee"], when: { rose_by: "10%" } }],
  ["family", { table: "watched_rights", columns: ["watched_right_events"], when: { appeared: true } }],
  ["new-keys", { table: "watched_rights", when: { appeared: true } }],
  // One value of the two-column key names every key that has it.
  [
    "ep",
    {
      table: "watched_rights",
      keys: { list: ["EP"] },
      columns: ["status", "in_force", "watched_right_events"],
    },
  ],
  ["stable", { table: "watched_rights", columns: ["legal_date", "checked", "claims", "annuity"] }],
];
// A JSON column (which Postgres does not read back as written) among the compared ones.
const WITH_JSON: [string, WatchFile][] = [
  ...TYPED,
  ["stable-json", { table: "watched_rights", columns: ["meta"] }],
  ["ep-any", { table: "watched_rights", keys: { list: ["EP"] } }],
];

describe.each(WAREHOUSE_KINDS)("watches evaluated by the load on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    let n = 0;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      return () => w.close();
    });

    const load = async (run: string, data: Rec[], at: string) => {
      const [c] = await preparePipelines(w, [pipeline], {});
      const target: LoadTarget = { ...c!, loadId: await openLoad(w, run, pipeline.name) };
      const answer: Answer = {
        call: firstCall(pipeline.skill, `h${n++}`, { patentNumber: data.map((r) => r.pn).join(",") }),
        data: { data },
        receivedAt: at,
        ledger: { kind: "none" },
      };
      await loadAnswers(w, target, run, [answer]);
      return target.loadId!;
    };

    it.each([
      ["typed columns", TYPED],
      ["a JSON column too", WITH_JSON],
    ])(
      "alerts each condition's keys exactly: child rows, a part of the key, %s compared as stored",
      async (_, watches) => {
        await load("run-1", FIRST, WEEK_1);
        for (const [name, file] of watches) await defineWatch(w, name, file, { source: "test" });
        const second = await load("run-2", SECOND, WEEK_2);

        const alerts = await listAlerts(w.db, { loadId: second });
        const of = (watch: string) =>
          alerts
            .filter((a) => a.watch === watch)
            .map((a) => [JSON.parse(a.key).join("-"), a.change, a.column, a.old, a.new])
            .sort();
        expect(of("lapsed")).toEqual([["EP-1", "changed", "in_force", "true", "false"]]);
        expect(of("fee-up")).toEqual([["US-1", "changed", "fee", "100", "112"]]);
        // `appeared` is a child row added, or a key's first version.
        expect(of("family")).toEqual([
          ["EP-2", "appeared", "watched_right_events", null, "OPPO, 2026-11-03"],
          ["US-4", "appeared", null, null, null],
        ]);
        expect(of("new-keys")).toEqual(of("family"));
        expect(of("ep")).toEqual([
          ["EP-1", "changed", "in_force", "true", "false"],
          ["EP-1", "changed", "status", "granted", "lapsed"],
          ["EP-2", "changed", "watched_right_events", "1", "2"],
        ]);
        // Every column: the same changes (nothing else moved), where there is such a watch.
        if (watches === WITH_JSON) expect(of("ep-any")).toEqual(of("ep"));
        // Unchanged dates, times, decimals, integers and JSON given again: no change, whatever the
        // database makes of them.
        expect(of("stable")).toEqual([]);
        expect(of("stable-json")).toEqual([]);
        expect(alerts.every((a) => a.loadId === second)).toBe(true);

        // The same answers again: nothing moved, nothing alerts.
        const third = await load("run-3", SECOND, WEEK_3);
        expect(await listAlerts(w.db, { loadId: third })).toEqual([]);
      },
    );
  });
});
