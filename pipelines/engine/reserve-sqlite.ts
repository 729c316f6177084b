import type SQLite from "better-sqlite3";
import { type Ceiling, EPSILON } from "./budget.js";
import { type CallRecord, callRow, isFresh } from "./ledger.js";

/** Which stored answers may answer a call: younger than `freshnessMs`, or stored by `runId`. */
export interface FreshRule {
  freshnessMs: number;
  runId?: string;
}

interface Statements {
  stored: SQLite.Statement<[string]>;
  reserve: SQLite.Statement<unknown[]>;
  insert: SQLite.Statement<Record<string, unknown>>;
}

const statements = new WeakMap<SQLite.Database, Statements>();

function prepare(database: SQLite.Database): Statements {
  let s = statements.get(database);
  if (!s) {
    const names = Object.keys(
      callRow({ runId: "", pipeline: "", skill: "", requestHash: "", credits: 0 }, "reserved", ""),
    );
    s = {
      // One statement whatever the group's size: the hashes come as one JSON array.
      stored: database.prepare(
        "select request_hash, received_at, run_id from skillsync_responses where request_hash in (select value from json_each(?))",
      ),
      // budget.ts tryReserveCredits's conditional UPDATE, in SQL.
      reserve: database.prepare(
        "update skillsync_budgets set reserved = reserved + ?, updated_at = ? where scope = ? and (limit_credits is null or reserved + ? <= limit_credits + ?)",
      ),
      insert: database.prepare(
        `insert into skillsync_calls (${names.join(", ")}) values (${names.map((n) => `@${n}`).join(", ")}) returning id`,
      ),
    };
    statements.set(database, s);
  }
  return s;
}

/** Thrown inside the transaction to roll it back: the group needs the general path. */
class NotWholly extends Error {}

/**
 * The usual reservation of a group on SQLite, as ONE synchronous `BEGIN IMMEDIATE` transaction of
 * prepared statements: no call has a fresh stored answer, every ceiling's row exists and the whole
 * group fits under each. Returns each call's ledger id in group order, or undefined with nothing
 * written when any of that is not so (the general path then decides call by call).
 *
 * Why not Kysely: its seven awaited statements per group let other work run while the group holds
 * the database, and a group's time is what every call of a burst waits before it is sent (measured
 * at C = 32: ~0.5 ms per group through Kysely, ~0.1 ms here). The caller must hold Kysely's
 * connection (`db.connection().execute`) so no other statement runs inside this transaction.
 */
export function reserveWholeGroup(
  database: SQLite.Database,
  ceilings: readonly Ceiling[],
  group: readonly CallRecord[],
  fresh: FreshRule | undefined,
): number[] | undefined {
  const s = prepare(database);
  const run = database.transaction((): number[] => {
    if (fresh) {
      const rows = s.stored.all(JSON.stringify(group.map((g) => g.requestHash))) as {
        received_at: unknown;
        run_id: unknown;
      }[];
      if (rows.some(isFresh(fresh.freshnessMs, fresh.runId))) throw new NotWholly();
    }
    const at = new Date().toISOString();
    const total = group.reduce((sum, g) => sum + g.credits, 0);
    // Scopes in a fixed order, as tryReserveCredits takes them.
    for (const c of [...ceilings].sort((a, b) => a.scope.localeCompare(b.scope))) {
      if (s.reserve.run(total, at, c.scope, total, EPSILON).changes === 0) throw new NotWholly();
    }
    return group.map((g) => Number((s.insert.get(callRow(g, "reserved", at)) as { id: number }).id));
  });
  try {
    return run.immediate();
  } catch (err) {
    if (err instanceof NotWholly) return undefined;
    throw err;
  }
}
