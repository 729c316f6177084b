import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../../connectors/warehouse/open.js";
import type { CreditCeilingError } from "../../core/errors.js";
import { type Ceiling, ceilingError, tryReserveCredits } from "./budget.js";
import { type CallRecord, callRow, freshResponses, type StoredResponse, storedResponses } from "./ledger.js";
import { type FreshRule, reserveWholeGroup } from "./reserve-sqlite.js";
import { waiters } from "./waiters.js";

/** A reserved call's ledger id, or the fresh stored answer that makes the call needless. */
export type Reserved = { callId: number } | { stored: StoredResponse };

interface Waiting {
  record: CallRecord;
  resolve(r: Reserved): void;
  reject(err: unknown): void;
}

/**
 * Reserves calls in groups: the calls that ask while one reservation transaction runs are reserved
 * together in the next (group commit). Each call still gets its credits held against every ceiling
 * and its `reserved` ledger row, durably, before it is sent — in one commit for the group instead
 * of one per call. A call a ceiling would pass is refused alone (CreditCeilingError); the others of
 * its group are reserved. With `fresh`, the group first looks for fresh stored answers (one query
 * for the group): a call answered from the store is not reserved. On SQLite the usual group (no
 * fresh answer, all of it fits) is reserved in one synchronous transaction (reserve-sqlite.ts).
 *
 * @example
 * const { reserve } = reservations(warehouse, ceilings, { freshnessMs: 0, runId });
 * const r = await reserve({ runId, pipeline, skill, requestHash, credits: 1 }); // { callId }: send it
 */
export function reservations(w: Warehouse, ceilings: Ceiling[], fresh?: FreshRule) {
  const queue: Waiting[] = [];
  let running = false;
  const idle = waiters();

  async function pump(): Promise<void> {
    while (queue.length) {
      // Calls asking in the same turn of the event loop join the group.
      await new Promise<void>((resume) => setImmediate(resume));
      const group = queue.splice(0, 64);
      try {
        const whole = await reserveWholly(group.map((g) => g.record));
        if (whole && "ids" in whole) {
          for (const [i, g] of group.entries()) g.resolve({ callId: whole.ids[i]! });
          continue;
        }
        // Looked up before the transaction: in SQLite a transaction that reads first cannot wait
        // for the write lock another process holds (it fails at once with "database is locked").
        // The SQLite path has found which are fresh already.
        const stored = whole
          ? await storedResponses(w.db, whole.fresh)
          : fresh
            ? await freshResponses(
                w.db,
                [...new Set(group.map((g) => g.record.requestHash))],
                fresh.freshnessMs,
                fresh.runId,
              )
            : undefined;
        const toReserve = stored?.size ? group.filter((g) => !stored.has(g.record.requestHash)) : group;
        const ids = toReserve.length
          ? await w.transaction((tx) => reserveGroup(tx.db, ceilings, toReserve))
          : [];
        toReserve.forEach((g, i) => {
          const r = ids[i]!;
          if (typeof r === "number") g.resolve({ callId: r });
          else g.reject(r);
        });
        for (const g of group) {
          const answer = stored?.get(g.record.requestHash);
          if (answer) g.resolve({ stored: answer });
        }
      } catch (err) {
        for (const g of group) g.reject(err);
      }
    }
    running = false;
    idle.wakeAll();
  }

  /** SQLite's one-transaction path for the usual group; undefined on Postgres. */
  async function reserveWholly(
    records: CallRecord[],
  ): Promise<ReturnType<typeof reserveWholeGroup> | undefined> {
    const raw = w.raw;
    if (raw.kind !== "sqlite") return undefined;
    // Holding Kysely's one connection: no other statement can run inside the raw transaction.
    return w.db
      .connection()
      .execute(async () => reserveWholeGroup(w.db, raw.database, ceilings, records, fresh));
  }

  return {
    reserve: (record: CallRecord) =>
      new Promise<Reserved>((resolve, reject) => {
        queue.push({ record, resolve, reject });
        if (!running) {
          running = true;
          void pump();
        }
      }),
    /** Resolves when no reservation waits or runs: loading can take the database without delaying a call. */
    idle: (): Promise<void> => (running ? idle.wait() : Promise.resolve()),
  };
}

/** Each call's ledger id, or the error refusing it. */
async function reserveGroup(
  trx: Kysely<AnyDB>,
  ceilings: Ceiling[],
  group: Waiting[],
): Promise<(number | CreditCeilingError)[]> {
  const out: (number | CreditCeilingError | undefined)[] = group.map(() => undefined);
  const total = group.reduce((s, g) => s + g.record.credits, 0);
  // The whole group at once when it fits (the common case: one statement on Postgres, budget.ts); else call by call.
  const together = group.length > 1 && (await tryReserveCredits(trx, ceilings, total)) === undefined;
  if (!together) {
    for (const [i, g] of group.entries()) {
      const passed = await tryReserveCredits(trx, ceilings, g.record.credits);
      if (passed) out[i] = ceilingError(passed, g.record.credits);
    }
  }
  const granted = group.flatMap((g, i) => (out[i] === undefined ? [{ g, i }] : []));
  if (granted.length) {
    const at = new Date().toISOString();
    const rows = await trx
      .insertInto("skillsync_calls")
      .values(granted.map(({ g }) => callRow(g.record, "reserved", at)))
      .returning(["id", "request_hash"])
      .execute();
    // RETURNING's order is not promised: ids are matched by request hash (in id order for a hash twice).
    const ids = new Map<string, number[]>();
    for (const r of [...rows].sort((a, b) => Number(a.id) - Number(b.id))) {
      const list = ids.get(r.request_hash as string) ?? [];
      list.push(Number(r.id));
      ids.set(r.request_hash as string, list);
    }
    for (const { g, i } of granted) out[i] = ids.get(g.record.requestHash)!.shift()!;
  }
  return out as (number | CreditCeilingError)[];
}
