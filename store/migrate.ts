import { type MigrationResultSet, Migrator, sql } from "kysely";
import { isBusy, isCatalogRace, isDeadlock } from "../connectors/warehouse/driver-errors.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import { ConfigurationError, SkillsyncError } from "../core/errors.js";
import { allMigrations } from "../migrations/index.js";
import { setUpReader } from "./reader-login.js";

export interface MigrateOutcome {
  applied: string[];
  results: NonNullable<MigrationResultSet["results"]>;
}

/**
 * Another process at work on the same warehouse: SQLite's writer lock, a deadlock, or (Postgres) a
 * race in the catalog (two processes creating the same table). Such a failure is tried again.
 * Other sessions dropping their own schemas no longer reach us: introspection reads the
 * warehouse's schema only (OwnSchemaIntrospector).
 */
const isRetryable = (error: unknown) => isBusy(error) || isDeadlock(error) || isCatalogRace(error);

/** Carries Kysely's failed result out of the lock, so its transaction is rolled back. */
class MigrationFailed extends Error {
  constructor(readonly result: MigrationResultSet) {
    super("migration failed");
  }
}

/**
 * Brings the warehouse to the latest migration. Safe to run twice and from two processes at once:
 * Kysely's migrator takes a lock, and a race while creating its own bookkeeping tables is retried.
 */
export async function migrateToLatest(w: Warehouse): Promise<MigrateOutcome> {
  if (await isLatest(w)) return { applied: [], results: [] };
  const migrator = new Migrator({
    db: w.db,
    provider: { getMigrations: async () => allMigrations(w.adapter) },
    // Kysely's bookkeeping tables live in the warehouse's schema, where introspection looks.
    ...(w.adapter.schema ? { migrationTableSchema: w.adapter.schema } : {}),
  });
  for (let attempt = 0; ; attempt++) {
    // Kysely reports a failed migration as `error`; thrown, it rolls the SQLite transaction back.
    const { error, results = [] } = await w.adapter
      .migrating(w.db, async () => {
        const r = await migrator.migrateToLatest();
        if (r.error) throw new MigrationFailed(r);
        return r;
      })
      .catch((err: unknown) => (err instanceof MigrationFailed ? err.result : { error: err, results: [] }));
    if (!error) {
      const applied = results.filter((r) => r.status === "Success").map((r) => r.migrationName);
      // A new (or newly upgraded) warehouse gets its reader role at once where the owner may make
      // one, so read paths — a `plan` that changes nothing included — find it there.
      if (applied.length && w.adapter.loginRoles) await setUpReader(w).catch(() => undefined);
      return { applied, results };
    }
    if (attempt < 5 && isRetryable(error)) {
      await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
      continue;
    }
    const failed = results.find((r) => r.status === "Error")?.migrationName ?? "(setup)";
    throw new SkillsyncError(
      "MIGRATION",
      `migration ${failed} failed on ${w.description}: ${error instanceof Error ? error.message : String(error)}`,
      undefined,
      { cause: error },
    );
  }
}

/**
 * Whether every migration is already recorded: one query on our own bookkeeping table, instead of
 * the migrator's introspection of every schema of the database (on Postgres it took ~300 ms per run
 * with a few hundred schemas, and grows with them). Any doubt (no table yet) goes to the migrator.
 */
async function isLatest(w: Warehouse): Promise<boolean> {
  return (await pendingMigrations(w)).length === 0;
}

/**
 * For commands that only read: a database where no migration ever ran is no warehouse, and is
 * said so (exit 2) before anything is created in it — no tables, no reader role.
 */
export async function mustBeWarehouse(w: Warehouse): Promise<void> {
  const pending = await pendingMigrations(w);
  if (pending.length < Object.keys(allMigrations(w.adapter)).length) return;
  throw new ConfigurationError(
    `no skillsync warehouse in ${w.description} yet: run a pipeline first (or \`skillsync migrate\` to create one); this command only reads and created nothing`,
  );
}

/** The migrations the warehouse has not had yet (all of them for a new one), changing nothing. */
export async function pendingMigrations(w: Warehouse): Promise<string[]> {
  const table = w.adapter.schema ? `${w.adapter.schema}.kysely_migration` : "kysely_migration";
  const all = Object.keys(allMigrations(w.adapter));
  try {
    const r = await sql<{ name: string }>`select name from ${sql.table(table)}`.execute(w.db);
    const done = new Set(r.rows.map((row) => row.name));
    return all.filter((name) => !done.has(name));
  } catch {
    return all;
  }
}
