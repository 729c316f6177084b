import type { Warehouse } from "../connectors/warehouse/open.js";
import { retryDeadlock } from "../connectors/warehouse/retry-deadlock.js";

const TABLE = "skillsync_rate_limits";

/** A change of an account's stored rate state: the new state, its pace for people, and a result. */
export type RateChange<T> = (state: unknown, now: number) => { state: unknown; pace: number | null; out: T };

/**
 * Reads an account's rate state (undefined the first time), applies `change` and writes it back in
 * one transaction, under a lock (the row's on Postgres, the writer's on SQLite): every run, worker
 * and server on the warehouse that uses the same key changes it in turn (docs/rate-limits.md).
 */
export function updateRateState<T>(w: Warehouse, account: string, change: RateChange<T>): Promise<T> {
  return retryDeadlock(() =>
    w.transaction(async (tx) => {
      const now = Date.now();
      const at = new Date(now).toISOString();
      // The row exists before it is locked: two processes' first changes then take turns.
      await tx.db
        .insertInto(TABLE)
        .values({ account, pace: null, state: "null", updated_at: at })
        .onConflict((oc) => oc.column("account").doNothing())
        .execute();
      let q = tx.db.selectFrom(TABLE).select("state").where("account", "=", account);
      if (w.adapter.selectForUpdate) q = q.forUpdate();
      const stored = JSON.parse(String((await q.executeTakeFirstOrThrow())["state"])) as unknown;
      const r = change(stored ?? undefined, now);
      await tx.db
        .updateTable(TABLE)
        .set({ pace: r.pace, state: JSON.stringify(r.state), updated_at: at })
        .where("account", "=", account)
        .execute();
      return r.out;
    }),
  );
}
