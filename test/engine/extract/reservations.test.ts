import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { CreditCeilingError } from "../../../core/errors.js";
import { reservations } from "../../../engine/extract/reservations.js";
import { migrateToLatest } from "../../../store/migrate.js";
import type { FreshRule } from "../../../store/reserve-whole-group.js";
import { storeResponse } from "../../../store/responses.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { rows } from "../fixtures.js";

const record = (i: number, credits: number) => ({
  runId: "run-1",
  pipeline: "p",
  skill: "marketplace-search",
  requestHash: `h${i}`,
  credits,
});

describe.each(WAREHOUSE_KINDS)("calls reserved in groups on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      await migrateToLatest(w);
      return () => w.close();
    });

    const settle = (credits: number[], limit: number, fresh?: FreshRule) => {
      const { reserve } = reservations(w, [{ scope: "cap", limit, label: "--max-credits" }], fresh);
      // Asked in the same turn: they share reservation transactions.
      return Promise.allSettled(credits.map((c, i) => reserve(record(i, c))));
    };

    it("grants calls up to the ceiling and refuses the rest alone, each granted call with its own ledger row", async () => {
      const out = await settle([3, 3, 1, 1, 2], 5);
      expect(out.map((o) => o.status)).toEqual([
        "fulfilled",
        "rejected",
        "fulfilled",
        "fulfilled",
        "rejected",
      ]);
      for (const o of out) if (o.status === "rejected") expect(o.reason).toBeInstanceOf(CreditCeilingError);
      const budget = await rows<{ reserved: number }>(
        w,
        "select reserved from skillsync_budgets where scope = 'cap'",
      );
      expect(Number(budget[0]!.reserved)).toBe(5);
      const ledger = await rows<{ id: number; request_hash: string; outcome: string; credits: number }>(
        w,
        "select id, request_hash, outcome, credits from skillsync_calls order by request_hash",
      );
      expect(ledger.map((r) => [r.request_hash, r.outcome, Number(r.credits)])).toEqual([
        ["h0", "reserved", 3],
        ["h2", "reserved", 1],
        ["h3", "reserved", 1],
      ]);
      // Each call is told the id of its own row.
      const ids = Object.fromEntries(ledger.map((r) => [r.request_hash, Number(r.id)]));
      expect(
        out.flatMap((o) => (o.status === "fulfilled" && "callId" in o.value ? [o.value.callId] : [])),
      ).toEqual([ids["h0"], ids["h2"], ids["h3"]]);
    });

    it("grants exactly the ceiling among 40 calls asking at once, and nothing past it", async () => {
      const first = await settle(
        Array.from({ length: 40 }, () => 1),
        25,
      );
      expect(first.filter((o) => o.status === "fulfilled")).toHaveLength(25);
      const budget = await rows<{ reserved: number }>(
        w,
        "select reserved from skillsync_budgets where scope = 'cap'",
      );
      expect(Number(budget[0]!.reserved)).toBe(25);
      const n = await rows<{ n: number }>(
        w,
        "select count(*) as n from skillsync_calls where outcome = 'reserved'",
      );
      expect(Number(n[0]!.n)).toBe(25);
    });

    it("reserves a group that fits once the ceiling's row exists: each call its own row and id, the budget holds their sum", async () => {
      await settle([1], 100); // creates the ceiling's row
      const { reserve } = reservations(w, [{ scope: "cap", limit: 100, label: "--max-credits" }]);
      const out = await Promise.all([2, 3, 4, 5].map((c, i) => reserve(record(10 + i, c))));
      const ledger = await rows<{ id: number; request_hash: string; credits: number }>(
        w,
        "select id, request_hash, credits from skillsync_calls where request_hash != 'h0' order by id",
      );
      expect(ledger.map((r) => [r.request_hash, Number(r.credits)])).toEqual([
        ["h10", 2],
        ["h11", 3],
        ["h12", 4],
        ["h13", 5],
      ]);
      expect(out).toEqual(ledger.map((r) => ({ callId: Number(r.id) })));
      const budget = await rows<{ reserved: number }>(
        w,
        "select reserved from skillsync_budgets where scope = 'cap'",
      );
      expect(Number(budget[0]!.reserved)).toBe(15);
    });

    it("does not reserve a group whole when one of its calls has a fresh stored answer", async () => {
      await settle([1], 100, { freshnessMs: 60_000, runId: "run-1" }); // the ceiling's row exists
      await storeResponse(w.db, {
        hash: "h2",
        skill: "marketplace-search",
        request: {},
        data: { stored: "h2" },
        traceId: null,
        runId: "older-run",
        receivedAt: new Date().toISOString(),
      });
      const out = await settle([1, 1, 1], 100, { freshnessMs: 60_000, runId: "run-1" });
      expect(
        out.map((o) => o.status === "fulfilled" && ("stored" in o.value ? "stored" : "reserved")),
      ).toEqual(["reserved", "reserved", "stored"]);
      const n = await rows<{ n: number }>(
        w,
        "select count(*) as n from skillsync_calls where request_hash = 'h2'",
      );
      expect(Number(n[0]!.n)).toBe(0);
    });

    it("answers a call from a fresh stored answer instead of reserving it; a stale one is reserved", async () => {
      for (const hash of ["h1", "h3"]) {
        await storeResponse(w.db, {
          hash,
          skill: "marketplace-search",
          request: {},
          data: { stored: hash },
          traceId: null,
          runId: "older-run",
          receivedAt: new Date().toISOString(),
        });
      }
      const out = await settle([1, 1, 1, 1], 10, { freshnessMs: 60_000, runId: "run-1" });
      expect(
        out.map((o) =>
          o.status === "fulfilled" ? ("stored" in o.value ? o.value.stored.data : "reserved") : "refused",
        ),
      ).toEqual(["reserved", { stored: "h1" }, "reserved", { stored: "h3" }]);
      const budget = await rows<{ reserved: number }>(
        w,
        "select reserved from skillsync_budgets where scope = 'cap'",
      );
      expect(Number(budget[0]!.reserved)).toBe(2);
      // Outside the freshness window (0: never fresh) and from another run: reserved and paid again.
      const stale = await settle([1, 1], 10, { freshnessMs: 0, runId: "run-1" });
      expect(stale.map((o) => o.status === "fulfilled" && "callId" in o.value)).toEqual([true, true]);
    });
  });
});
