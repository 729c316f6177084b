import type SQLite from "better-sqlite3";
import type { Kysely } from "kysely";
import { prepared } from "../../connectors/warehouse/bulk-sqlite.js";
import type { AnyDB } from "../../connectors/warehouse/open.js";
import { type Ceiling, inLockOrder, reserveStatement } from "./budget.js";
import { type CallRecord, callRow, isFresh } from "./ledger.js";

/** Which stored answers may answer a call: younger than `freshnessMs`, or stored by `runId`. */
export interface FreshRule {
  freshnessMs: number;
  runId?: string;
}

// One statement whatever the group's size: the hashes come as one JSON array.
const STORED =
  "select request_hash, received_at, run_id from skillsync_responses where request_hash in (select value from json_each(?))";

const CALL_COLUMNS = Object.keys(
  callRow({ runId: "", pipeline: "", skill: "", requestHash: "", credits: 0 }, "reserved", ""),
);
const INSERT_CALL = `insert into skillsync_calls (${CALL_COLUMNS.join(", ")}) values (${CALL_COLUMNS.map((n) => `@${n}`).join(", ")}) returning id`;

/**
 * Thrown inside the transaction to roll it back: the group needs the general path. `fresh`: the
 * hashes found with a fresh stored answer (none when the group failed only at a ceiling).
 */
class NotWholly extends Error {
  constructor(readonly fresh: string[]) {
    super("not reserved whole");
  }
}

/**
 * The usual reservation of a group on SQLite, as ONE synchronous `BEGIN IMMEDIATE` transaction of
 * prepared statements: no call has a fresh stored answer, every ceiling's row exists and the whole
 * group fits under each. Returns each call's ledger id in group order; else nothing is written and
 * the general path decides call by call, told which hashes have a fresh stored answer (`fresh`,
 * possibly none, so it does not look them up again).
 *
 * Why not Kysely: its seven awaited statements per group let other work run while the group holds
 * the database, and a group's time is what every call of a burst waits before it is sent (measured
 * at C = 32: ~0.5 ms per group through Kysely, ~0.1 ms here). The caller must hold Kysely's
 * connection (`db.connection().execute`) so no other statement runs inside this transaction.
 */
export function reserveWholeGroup(
  db: Kysely<AnyDB>,
  database: SQLite.Database,
  ceilings: readonly Ceiling[],
  group: readonly CallRecord[],
  fresh: FreshRule | undefined,
): { ids: number[] } | { fresh: string[] } {
  const run = database.transaction((): number[] => {
    if (fresh) {
      const rows = prepared(database, STORED).all(JSON.stringify(group.map((g) => g.requestHash))) as {
        request_hash: string;
        received_at: unknown;
        run_id: unknown;
      }[];
      const found = rows.filter(isFresh(fresh.freshnessMs, fresh.runId));
      if (found.length) throw new NotWholly(found.map((r) => r.request_hash));
    }
    const at = new Date().toISOString();
    const total = group.reduce((sum, g) => sum + g.credits, 0);
    for (const c of inLockOrder(ceilings)) {
      const q = reserveStatement(c.scope, total, at).compile(db);
      if (prepared(database, q.sql).run(q.parameters as unknown[]).changes === 0) throw new NotWholly([]);
    }
    const insert = prepared(database, INSERT_CALL);
    return group.map((g) => Number((insert.get(callRow(g, "reserved", at)) as { id: number }).id));
  });
  try {
    return { ids: run.immediate() };
  } catch (err) {
    if (!(err instanceof NotWholly)) throw err;
    return { fresh: err.fresh };
  }
}
