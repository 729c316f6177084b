import { sql } from "kysely";
import { driverErrorCode, isCatalogRace, isNotPermitted } from "../connectors/warehouse/driver-errors.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import {
  ensureReaderRole,
  keepPrivate,
  newReaderPassword,
  type ReaderLogin,
  readerProblems,
  readerRoleName,
} from "../connectors/warehouse/postgres/reader.js";
import { ConfigurationError } from "../core/errors.js";
import { registerSecret } from "../core/redact.js";
import { createReaderLoginTable } from "../migrations/010_reader_login.js";

const TABLE = "skillsync_reader_login";

/** The reader role `setUpReader` made, with its password, or undefined (none yet, or not ours to read). */
async function storedLogin(w: Warehouse): Promise<Extract<ReaderLogin, { kind: "role" }> | undefined> {
  try {
    const row = await w.db.selectFrom(TABLE).select(["role", "password"]).limit(1).executeTakeFirst();
    if (!row) return undefined;
    registerSecret(row.password as string);
    return { kind: "role", role: row.role as string, password: row.password as string };
  } catch (err) {
    // A login that may not read it (a reader connecting as itself), or a warehouse not migrated.
    if (isNotPermitted(err) || driverErrorCode(err) === "42P01") return undefined;
    throw err;
  }
}

/** What `setUpReader` did: the role read paths log in as, or why it could not make one. */
export type ReaderSetup =
  /** `walWriters`: whether PUBLIC's EXECUTE on functions that write the WAL outside a transaction is taken (reader.ts). */
  { role: string; created: boolean; walWriters: "revoked" | "left" } | { refused: string };

/**
 * Makes (or brings up to date) the warehouse's reader role and keeps its password where only the
 * owner reads it (docs/read-only.md). One process at a time per warehouse: the role, its grants and
 * the stored password change together or not at all. Needs CREATEROLE (or a superuser).
 */
export async function setUpReader(w: Warehouse): Promise<ReaderSetup> {
  if (!w.adapter.loginRoles) return { refused: "SQLite has no logins" };
  for (let attempt = 1; ; attempt++) {
    try {
      return await setUpOnce(w);
    } catch (err) {
      if (isNotPermitted(err)) return { refused: err instanceof Error ? err.message : String(err) };
      // A migration creating the login table at the same moment (outside our lock).
      if (!isCatalogRace(err) || attempt >= 5) throw err;
    }
  }
}

async function setUpOnce(w: Warehouse): Promise<ReaderSetup & { role: string }> {
  return await w.db.transaction().execute(async (trx) => {
    await w.adapter.serialize(trx, "reader");
    const where = await sql<{ database: string; schema: string }>`
        select current_database() as database, current_schema() as schema`.execute(trx);
    const { database, schema } = where.rows[0]!;
    const role = readerRoleName(database, schema);
    await createReaderLoginTable(trx, w.adapter);
    const stored = await trx
      .selectFrom(TABLE)
      .select(["password"])
      .where("role", "=", role)
      .executeTakeFirst();
    const password = (stored?.password as string | undefined) ?? newReaderPassword();
    registerSecret(password);
    const { walWritersLeft } = await ensureReaderRole(trx, { role, password, schema, database });
    // After the grant on all the schema's tables: the one table the reader must not read.
    await keepPrivate(trx, TABLE);
    await trx
      .insertInto(TABLE)
      .values({ role, password, created_at: new Date().toISOString() })
      .onConflict((oc) => oc.column("role").doUpdateSet({ password }))
      .execute();
    return { role, created: !stored, walWriters: walWritersLeft ? "left" : "revoked" };
  });
}

/**
 * Why the read paths of a Postgres warehouse have no reader yet (`doctor`), or undefined when a
 * reader login is stored or this login can only read. Changes nothing.
 */
export async function readerMissing(w: Warehouse): Promise<string | undefined> {
  if (await storedLogin(w)) return undefined;
  const problems = await readerProblems(w.db);
  return problems.length ? `no reader login is stored, and this login ${problems.join(", ")}` : undefined;
}

/**
 * The login the read paths of `w` use (Postgres): the role `setUpReader` made; else the
 * warehouse's own login when it can only read; else a role made now, when the owner may.
 * Otherwise reads are refused, saying how to set one up. `--read-db` bypasses this (open.ts).
 */
export async function readerLogin(w: Warehouse): Promise<ReaderLogin> {
  const stored = await storedLogin(w);
  if (stored) return stored;
  const problems = await readerProblems(w.db);
  if (!problems.length) return { kind: "self" };
  const made = await setUpReader(w);
  if ("role" in made) {
    const login = await storedLogin(w);
    if (login) return login;
  }
  const user = await sql<{ user: string }>`select current_user as user`.execute(w.db);
  const who = `${user.rows[0]?.user ?? "this login"} ${problems.join(", ")}`;
  const why = "refused" in made ? made.refused : "it was not stored";
  throw new ConfigurationError(
    /read-only transaction/.test(why)
      ? `read paths on Postgres log in as a role that can only read the warehouse, and this warehouse has none yet (${who}); this command changes nothing, so it cannot make one: run \`skillsync migrate\` (or any run) once, or pass a reader login with --read-db or SKILLSYNC_READ_DATABASE_URL (docs/read-only.md)`
      : `read paths on Postgres log in as a role that can only read the warehouse, and there is none yet: ${who}, and could not make one (${why}). Run \`skillsync migrate\` as a role with CREATEROLE (or a superuser), or create a reader login yourself and pass it with --read-db or SKILLSYNC_READ_DATABASE_URL (docs/read-only.md)`,
  );
}
