import { sql } from "kysely";
import { openWarehouse, type Warehouse } from "../../../../connectors/warehouse/open.js";
import { migrateToLatest } from "../../../../store/migrate.js";
import { afterTest } from "../../../helpers/after-test.js";
import { freshWarehouseUrl, type WarehouseKind } from "../../../helpers/warehouses.js";

/** A fresh, migrated warehouse, closed (and dropped) after the test. */
export async function freshWarehouse(kind: WarehouseKind): Promise<Warehouse> {
  const w = await openWarehouse(freshWarehouseUrl(kind));
  afterTest(() => w.close());
  await migrateToLatest(w);
  return w;
}

/** A run as the tests insert it directly: the columns the console reads, the rest defaulted. */
export interface RunSeed {
  id: string;
  startedAt: string;
  pipelines?: string[];
  status?: string;
  trigger?: string;
  credits?: number;
  saved?: number;
  cached?: number;
  shared?: number;
  reused?: number;
}

const runRow = (r: RunSeed) => ({
  id: r.id,
  run_key: `key-${r.id}`,
  pipelines: JSON.stringify(r.pipelines ?? ["prices"]),
  params: "{}",
  trigger: r.trigger ?? "manual",
  status: r.status ?? "succeeded",
  started_at: r.startedAt,
  finished_at: r.startedAt,
  calls_planned: 3,
  calls_done: 3,
  calls_cached: r.cached ?? 0,
  calls_shared: r.shared ?? 0,
  calls_failed: 0,
  credits_spent: r.credits ?? 0,
  credits_saved: r.saved ?? 0,
  items_reused: r.reused ?? 0,
  rows_written: 3,
  rows_rejected: 0,
});

/** Inserts runs in one transaction, 500 a statement. */
export async function insertRuns(w: Warehouse, runs: readonly RunSeed[]): Promise<void> {
  await w.transaction(async (tx) => {
    for (let i = 0; i < runs.length; i += 500) {
      await tx.db
        .insertInto("skillsync_runs")
        .values(runs.slice(i, i + 500).map(runRow))
        .execute();
    }
  });
}

/** Ledger rows of one run: `n` calls of `skill` with `outcome`. */
export async function insertLedger(
  w: Warehouse,
  runId: string,
  rows: { skill: string; outcome: string; n: number; credits?: number }[],
): Promise<void> {
  const values = rows.flatMap((r) =>
    Array.from({ length: r.n }, (_, i) => ({
      run_id: runId,
      pipeline: "prices",
      skill: r.skill,
      request_hash: `${runId}-${r.skill}-${r.outcome}-${i}`,
      outcome: r.outcome,
      credits: r.credits ?? 0,
      started_at: new Date().toISOString(),
      attempts: 1,
    })),
  );
  if (values.length) await w.db.insertInto("skillsync_calls").values(values).execute();
}

/**
 * `perRun` ledger rows for every run of the warehouse in one statement (the speed test's 200,000):
 * one in five from the store, one in five shared, the rest paid.
 */
export async function ledgerForEveryRun(w: Warehouse, perRun: number): Promise<void> {
  await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(perRun)})
    insert into skillsync_calls (run_id, pipeline, skill, request_hash, outcome, credits, started_at, attempts)
    select r.id, 'prices', case when n.i % 2 = 0 then 'patent-claims' else 'search' end,
      r.id || '-' || cast(n.i as text),
      case n.i % 5 when 0 then 'cached' when 1 then 'shared' else 'succeeded' end,
      case when n.i % 5 < 2 then 0 else 1 end, r.started_at, 1
    from skillsync_runs r cross join n`.execute(w.db);
}
