import { Kysely, type PostgresPool } from "kysely";
import pg from "pg";
import { type AnyDB, registerAdapter, type WarehouseAdapter } from "../adapter.js";
import type { WarehouseTx } from "../bulk.js";
import { type PgSession, postgresBulkWriter } from "./bulk.js";
import { WarehousePostgresDialect } from "./introspector.js";

type Values = readonly unknown[] | undefined;

const NOTHING_SENT = {
  command: "",
  rowCount: null,
  oid: 0,
  rows: [],
  fields: [],
} as unknown as pg.QueryResult;

/**
 * A query that carries its transaction's BEGIN: Parse/Bind/Execute of `begin`, then the
 * statement's own, then ONE Sync. Postgres skips everything after an error up to the Sync, so
 * the statement never runs outside the transaction (a failed BEGIN fails it too), and the
 * transaction costs no round trip of its own. pg reports one result per command: the
 * statement's is the last.
 */
class BeginThen extends pg.Query {
  prepare(connection: {
    parse(q: { text: string; name: string; types: never[] }): void;
    bind(b: { portal: string; statement: string; values: never[] }): void;
    execute(e: { portal: string; rows: number }): void;
  }): void {
    connection.parse({ text: "begin", name: "", types: [] });
    connection.bind({ portal: "", statement: "", values: [] });
    connection.execute({ portal: "", rows: 0 });
    (pg.Query.prototype as unknown as { prepare(c: unknown): void }).prepare.call(this, connection);
  }
}

/**
 * One transaction's way to its client. BEGIN is owed until the first statement and goes with it
 * (`BeginThen`); a transaction that ran nothing sends neither BEGIN nor COMMIT/ROLLBACK.
 */
class LazySession implements PgSession {
  private owed = false;
  constructor(readonly client: pg.PoolClient) {}

  query(text: string, values?: Values): Promise<pg.QueryResult> {
    // Kysely's transaction control, compiled as these exact texts (PostgresDriver).
    if (text === "begin") {
      this.owed = true;
      return Promise.resolve(NOTHING_SENT);
    }
    if (!this.owed) return this.client.query(text, values as unknown[]);
    this.owed = false;
    if (text === "commit" || text === "rollback") return Promise.resolve(NOTHING_SENT);
    // Without parameters pg would use the simple protocol, where a text may hold several
    // statements; the extended one refuses that, so such a statement waits for its own BEGIN.
    if (!values?.length) return this.client.query("begin").then(() => this.client.query(text));
    return new Promise((resolve, reject) => {
      const q = new BeginThen({ text, values: values as unknown[] }, undefined, (err, res) => {
        if (err) reject(err);
        else resolve((Array.isArray(res) ? res[res.length - 1] : res) as pg.QueryResult);
      });
      this.client.query(q);
    });
  }

  async ready(): Promise<void> {
    if (!this.owed) return;
    this.owed = false;
    await this.client.query("begin");
  }
}

// Kysely never hands out the pg client of a transaction, and COPY needs it. So the transaction
// is ours: one pool client, and a Kysely whose "pool" is that client alone (release is a no-op;
// the real release is below), reaching it through the open transaction's session. One such
// Kysely per pooled client, made once, speaking the warehouse's adapter (`adapterOf(tx.db)`).
const onClient = new WeakMap<pg.PoolClient, Kysely<AnyDB>>();
const sessions = new WeakMap<pg.PoolClient, LazySession>();

function kyselyOn(client: pg.PoolClient, adapter: WarehouseAdapter): Kysely<AnyDB> {
  let db = onClient.get(client);
  if (!db) {
    const borrowed = {
      query: (text: string, values?: Values) => {
        const s = sessions.get(client);
        return s ? s.query(text, values) : client.query(text, values as unknown[]);
      },
      release: () => {},
    };
    const pool: PostgresPool = {
      connect: async () => borrowed as unknown as Awaited<ReturnType<PostgresPool["connect"]>>,
      end: async () => {},
    };
    db = new Kysely<AnyDB>({ dialect: new WarehousePostgresDialect({ pool }) });
    registerAdapter(db, adapter);
    onClient.set(client, db);
  }
  return db;
}

/**
 * Runs `fn` in one transaction on one client of the pool: Kysely statements (`tx.db`, a real
 * Kysely transaction, so nesting is refused) and COPY (`tx.bulk`) share it. Commits when `fn`
 * resolves, rolls back when it throws; a client whose rollback failed is discarded. BEGIN
 * travels with the first statement (one round trip less per transaction). `smallBatchValues`
 * is the bulk writer's (tests force the COPY path with 0).
 *
 * @example
 * await pgTransaction(pool, adapter, async (tx) => { await tx.bulk.write(def, rows, "upsert"); });
 */
export async function pgTransaction<T>(
  pool: pg.Pool,
  adapter: WarehouseAdapter,
  fn: (tx: WarehouseTx) => Promise<T>,
  options: { smallBatchValues?: number } = {},
): Promise<T> {
  const client = await pool.connect();
  const session = new LazySession(client);
  sessions.set(client, session);
  const done = (err?: Error | boolean) => {
    sessions.delete(client);
    client.release(err);
  };
  let trx: Awaited<ReturnType<ReturnType<Kysely<AnyDB>["startTransaction"]>["execute"]>>;
  try {
    trx = await kyselyOn(client, adapter).startTransaction().execute();
  } catch (err) {
    done(err instanceof Error ? err : true);
    throw err;
  }
  let out: T;
  const bulk = postgresBulkWriter(session, adapter, options);
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
    done(broken);
    throw err;
  }
  try {
    await trx.commit().execute();
  } catch (err) {
    bulk.rolledBack();
    // A failed COMMIT ends the transaction on the server; the client is fine but we trust it less.
    done(err instanceof Error ? err : true);
    throw err;
  }
  done();
  return out;
}
