import pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { type Ceiling, inLockOrder, tryReserveCredits } from "../../store/budget.js";
import { migrateToLatest } from "../../store/migrate.js";
import { rows } from "../engine/fixtures.js";
import { freshWarehouseUrl, unavailable } from "../helpers/warehouses.js";

// Code-point order puts "B…" before "a…"; a locale's order puts it after. Every transaction must
// take budget rows in one order, or two of them can wait on each other.
const CEILINGS: Ceiling[] = [
  { scope: "a-run", limit: 100, label: "--max-credits" },
  { scope: "B-daily", limit: 100, label: "daily budget" },
];

describe("budget rows are locked in one order", () => {
  it("sorts scopes by code point", () => {
    expect(inLockOrder(CEILINGS).map((c) => c.scope)).toEqual(["B-daily", "a-run"]);
  });

  describe.skipIf(unavailable("postgres"))("on postgres", () => {
    let w: Warehouse;
    let url: string;
    beforeEach(async () => {
      url = freshWarehouseUrl("postgres");
      w = await openWarehouse(url);
      await migrateToLatest(w);
      await w.db
        .insertInto("skillsync_budgets")
        .values(
          CEILINGS.map((c) => ({
            scope: c.scope,
            limit_credits: c.limit,
            reserved: 0,
            updated_at: "2026-01-01",
          })),
        )
        .execute();
      return () => w.close();
    });

    it("a group's one-statement reservation waits behind a transaction taking the rows one by one, and no deadlock", async () => {
      const other = new pg.Client({ connectionString: url.replace(/[?&]schema=[^&]*/, "") });
      await other.connect();
      try {
        const schema = new URL(url).searchParams.get("schema")!;
        // A deadlock would be found (and one side aborted) after 100 ms instead of 1 s.
        await other.query("set deadlock_timeout = '100ms'");
        await other.query("begin");
        const [first, second] = inLockOrder(CEILINGS).map((c) => c.scope);
        await other.query(
          `update "${schema}".skillsync_budgets set reserved = reserved + 1 where scope = $1`,
          [first],
        );
        const group = w.transaction((tx) => tryReserveCredits(tx.db, CEILINGS, 5));
        await new Promise((resolve) => setTimeout(resolve, 300));
        // Taking the second row now would wait on the group had it locked that row first.
        await other.query(
          `update "${schema}".skillsync_budgets set reserved = reserved + 1 where scope = $1`,
          [second],
        );
        await other.query("commit");
        expect(await group).toBeUndefined();
      } finally {
        await other.end();
      }
      const reserved = await rows<{ scope: string; reserved: number }>(
        w,
        "select scope, reserved from skillsync_budgets order by scope",
      );
      expect(reserved.map((r) => [r.scope, Number(r.reserved)])).toEqual([
        ["B-daily", 6],
        ["a-run", 6],
      ]);
    });
  });
});
