import { Kysely, sql } from "kysely";
import pg from "pg";
import { ConfigurationError } from "../../../core/errors.js";
import { type AnyDB, registerAdapter } from "../adapter.js";
import { isMissingDatabase, isNotPermitted, isUniqueViolation } from "../driver-errors.js";
import { describeWarehouse, NOT_THERE, type WarehouseTarget } from "../url.js";
import type { Warehouse } from "../warehouse.js";
import { postgresAdapter } from "./adapter.js";
import { BoundedClient } from "./connect.js";
import { WarehousePostgresDialect } from "./introspector.js";
import { openFailure } from "./open-errors.js";
import { postgresReadPath } from "./read-only.js";
import { readerSlot } from "./reader.js";
import { pgTransaction } from "./transaction.js";
import { pgTypes } from "./types.js";

type PostgresTarget = Extract<WarehouseTarget, { kind: "postgres" }>;

/**
 * Opens the Postgres warehouse of a URL (open.ts's `openWarehouse`): its schema made unless
 * `existing` (then it must be there) or `readOnly` (every session refuses writes); `readUrl`: the
 * reader login of the read paths (`--read-db`).
 */
export async function openPostgres(
  target: PostgresTarget,
  o: { existing?: boolean | undefined; readOnly?: boolean | undefined; readUrl: string | undefined },
): Promise<Warehouse> {
  try {
    if (o.existing) await mustExist(target);
    if (target.schema && !o.existing && !o.readOnly) await createSchema(target, target.schema);
    const pool = ownerPool(target, o.readOnly === true);
    const db = new Kysely<AnyDB>({ dialect: new WarehousePostgresDialect({ pool }) });
    await sql`select 1`.execute(db).catch(async (err: unknown) => {
      await db.destroy();
      throw isMissingDatabase(err) ? missingDatabase(target) : err;
    });
    return postgresWarehouse(target, pool, db, o.readUrl);
  } catch (err) {
    throw openFailure(err, target);
  }
}

/** Makes the warehouse's schema unless it is there, on a connection of its own. */
async function createSchema(target: PostgresTarget, schema: string): Promise<void> {
  const admin = new BoundedClient({ connectionString: target.connectionString });
  await admin.connect().catch(async (err: unknown) => {
    await admin.end().catch(() => {});
    throw isMissingDatabase(err) ? missingDatabase(target) : err;
  });
  try {
    await admin.query(`create schema if not exists "${schema}"`);
  } catch (err) {
    // Two processes creating the same schema at once: the loser sees a unique violation. A
    // read-only role may not create schemas but reads the one that exists.
    if (!isUniqueViolation(err) && !isNotPermitted(err)) throw err;
  } finally {
    await admin.end();
  }
}

/** The pool of the warehouse owner's sessions, in the warehouse's schema. */
function ownerPool(target: PostgresTarget, readOnly: boolean): pg.Pool {
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    // Each new connection bounded by CONNECT_TIMEOUT_MS; not the pool's own option, which would
    // also fail a query that waits that long for a busy pool's free connection.
    Client: BoundedClient,
    max: 10,
    types: pgTypes,
    // A schema that is not there (read-only) leaves search_path naming nothing: no table is found.
    ...sessionOptions([
      ...(target.schema ? [`search_path="${target.schema}"`] : []),
      ...(readOnly ? ["default_transaction_read_only=on"] : []),
    ]),
  });
  // An idle connection ended from outside (an administrator, a restart) is dropped and replaced by
  // the pool; unheard, the event would end the process.
  pool.on("error", () => {});
  return pool;
}

/** Postgres settings every session of the pool starts with (`-c name=value`). */
function sessionOptions(settings: string[]): { options?: string } {
  return settings.length ? { options: settings.map((x) => `-c ${x}`).join(" ") } : {};
}

/** The warehouse over the owner's pool, its read paths on the reader login's. */
function postgresWarehouse(
  target: PostgresTarget,
  pool: pg.Pool,
  db: Kysely<AnyDB>,
  readUrl: string | undefined,
): Warehouse {
  const adapter = postgresAdapter(target.schema);
  registerAdapter(db, adapter);
  const reader = readerSlot(target, pool, readUrl);
  return {
    db,
    adapter,
    raw: { kind: "postgres", pool },
    transaction: (fn) => pgTransaction(pool, adapter, fn),
    target,
    description: describeWarehouse(target),
    readPath: postgresReadPath(reader),
    close: async () => {
      await reader.close();
      await db.destroy();
    },
  };
}

function missingDatabase(target: PostgresTarget): ConfigurationError {
  return new ConfigurationError(
    `no database at ${describeWarehouse(target)}: create it (createdb) or fix --db / DATABASE_URL`,
  );
}

/**
 * For commands that only read: the warehouse's schema must be there already. A mistyped schema
 * would otherwise become a new empty warehouse that answers every question with nothing.
 */
async function mustExist(target: PostgresTarget): Promise<void> {
  if (!target.schema) return;
  const client = new BoundedClient({ connectionString: target.connectionString });
  try {
    await client.connect();
    const r = await client.query("select 1 from information_schema.schemata where schema_name = $1", [
      target.schema,
    ]);
    if (r.rowCount === 0)
      throw new ConfigurationError(`no warehouse at ${describeWarehouse(target)} — ${NOT_THERE}`);
  } catch (err) {
    throw isMissingDatabase(err) ? missingDatabase(target) : err;
  } finally {
    await client.end().catch(() => {});
  }
}
