import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import type pg from "pg";
import type { WarehouseAdapter } from "./adapter.js";
import type { WarehouseTx } from "./bulk.js";
import { postgresBulkWriter } from "./bulk-postgres.js";

// biome-ignore lint/suspicious/noExplicitAny: rows of user-declared tables
type AnyDB = any;

// Kysely never hands out the pg client of a transaction, and COPY needs it. So the transaction
// is ours: one pool client, and a Kysely whose "pool" is that client alone (release is a no-op;
// the real release is below). One such Kysely per pooled client, made once.
const onClient = new WeakMap<pg.PoolClient, Kysely<AnyDB>>();

function kyselyOn(client: pg.PoolClient): Kysely<AnyDB> {
  let db = onClient.get(client);
  if (!db) {
    const borrowed = { query: client.query.bind(client), release: () => {} };
    const pool: PostgresPool = {
      connect: async () => borrowed as unknown as Awaited<ReturnType<PostgresPool["connect"]>>,
      end: async () => {},
    };
    db = new Kysely<AnyDB>({ dialect: new PostgresDialect({ pool }) });
    onClient.set(client, db);
  }
  return db;
}

/**
 * Runs `fn` in one transaction on one client of the pool: Kysely statements (`tx.db`, a real
 * Kysely transaction, so nesting is refused) and COPY (`tx.bulk`) share it. Commits when `fn`
 * resolves, rolls back when it throws; a client whose rollback failed is discarded.
 *
 * @example
 * await pgTransaction(pool, adapter, async (tx) => { await tx.bulk.write(def, rows, "upsert"); });
 */
export async function pgTransaction<T>(
  pool: pg.Pool,
  adapter: WarehouseAdapter,
  fn: (tx: WarehouseTx) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let trx: Awaited<ReturnType<ReturnType<Kysely<AnyDB>["startTransaction"]>["execute"]>>;
  try {
    trx = await kyselyOn(client).startTransaction().execute();
  } catch (err) {
    client.release(err instanceof Error ? err : true);
    throw err;
  }
  let out: T;
  const bulk = postgresBulkWriter(client, adapter);
  try {
    out = await fn({ db: trx, bulk });
  } catch (err) {
    bulk.rolledBack();
    let broken: Error | undefined;
    await trx
      .rollback()
      .execute()
      .catch((e: unknown) => {
        broken = e instanceof Error ? e : new Error(String(e));
      });
    client.release(broken);
    throw err;
  }
  try {
    await trx.commit().execute();
  } catch (err) {
    bulk.rolledBack();
    // A failed COMMIT ends the transaction on the server; the client is fine but we trust it less.
    client.release(err instanceof Error ? err : true);
    throw err;
  }
  client.release();
  return out;
}
