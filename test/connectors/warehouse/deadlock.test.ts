import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { retryDeadlock } from "../../../connectors/warehouse/retry-deadlock.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { type ResponseToStore, responseRows, upsertResponseRows } from "../../../store/responses.js";
import { until } from "../../helpers/until.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";

// Runs at once under --refresh each store their own answers to the same requests: on Postgres the
// first try of this stop's CI met a deadlock there (two runs, two orders) and the run crashed.

const opened: Warehouse[] = [];

/** Stores answers in one statement, as the runner's keeper does. */
async function storeResponses(db: Warehouse["db"], list: ResponseToStore[]): Promise<void> {
  await upsertResponseRows(db, responseRows(list));
}
afterEach(async () => {
  for (const w of opened.splice(0)) await w.close();
});

/** Two handles (two pools, as two processes have) on one new Postgres warehouse. */
async function twoHandles(): Promise<[Warehouse, Warehouse]> {
  const url = freshWarehouseUrl("postgres");
  const a = await openWarehouse(url);
  opened.push(a);
  await migrateToLatest(a);
  const b = await openWarehouse(url);
  opened.push(b);
  return [a, b];
}

function deferred() {
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  return { gate, open };
}

const answer = (hash: string, runId: string) => ({
  hash,
  skill: "patent-legal-status",
  request: { pn: hash },
  data: { runId },
  traceId: null,
  runId,
  receivedAt: "2026-11-26T00:00:00.000Z",
});

/** Waits until the backend `pid` is blocked on a row lock held by another transaction. */
const blocked = (w: Warehouse, pid: number) =>
  until(
    async () => {
      const r = await sql<{ waiting: string | null }>`
        select wait_event_type as waiting from pg_stat_activity where pid = ${pid}`.execute(w.db);
      return r.rows[0]?.waiting === "Lock";
    },
    20_000,
    `backend ${pid} to wait for a lock`,
  );

describe.skipIf(unavailable("postgres"))("deadlocks between runs at once (postgres)", () => {
  it("two runs storing answers to the same requests, given in opposite orders, both commit", async () => {
    const [a, b] = await twoHandles();
    const held = deferred();
    const aHolds = deferred();
    let bPid = 0;
    // A stores x and keeps its transaction open; B then stores y and x (in that order) in one
    // statement; A goes on to store y. Unordered, B holds y waiting for x while A waits for y.
    const first = a.transaction(async (tx) => {
      await storeResponses(tx.db, [answer("x", "run-a")]);
      aHolds.open();
      await held.gate;
      await storeResponses(tx.db, [answer("y", "run-a")]);
    });
    await aHolds.gate;
    const second = b.transaction(async (tx) => {
      bPid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx.db)).rows[0]!.pid;
      await storeResponses(tx.db, [answer("y", "run-b"), answer("x", "run-b")]);
    });
    await until(async () => bPid > 0, 20_000, "B's backend");
    await blocked(a, bPid);
    held.open();
    await expect(Promise.all([first, second])).resolves.toBeDefined();
    const rows = await sql<{ request_hash: string; run_id: string }>`
      select request_hash, run_id from skillsync_responses order by request_hash`.execute(a.db);
    // B committed last: its answers are the stored ones.
    expect(rows.rows).toEqual([
      { request_hash: "x", run_id: "run-b" },
      { request_hash: "y", run_id: "run-b" },
    ]);
  });

  it("a transaction Postgres aborts to break a deadlock runs again and commits", async () => {
    const [a, b] = await twoHandles();
    await sql`create table locks_demo (id int primary key, n int not null)`.execute(a.db);
    await sql`insert into locks_demo values (1, 0), (2, 0)`.execute(a.db);
    const bump = (w: Warehouse, ids: number[], between: () => Promise<void>) => {
      let tries = 0;
      const done = retryDeadlock(() =>
        w.transaction(async (tx) => {
          tries++;
          await sql`update locks_demo set n = n + 1 where id = ${ids[0]}`.execute(tx.db);
          if (tries === 1) await between();
          await sql`update locks_demo set n = n + 1 where id = ${ids[1]}`.execute(tx.db);
        }),
      );
      return { done, tries: () => tries };
    };
    // Each first try takes its first row, then waits until the other has taken its own.
    const aTook = deferred();
    const bTook = deferred();
    const one = bump(a, [1, 2], async () => {
      aTook.open();
      await bTook.gate;
    });
    const two = bump(b, [2, 1], async () => {
      bTook.open();
      await aTook.gate;
    });
    await Promise.all([one.done, two.done]);
    // Exactly one was chosen as the victim and ran twice; every update counted once.
    expect(one.tries() + two.tries()).toBe(3);
    const rows = await sql<{ id: number; n: number }>`select id, n from locks_demo order by id`.execute(a.db);
    expect(rows.rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });
});
