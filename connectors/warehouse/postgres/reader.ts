import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { ConfigurationError } from "../../../core/errors.js";
import { registerSecret } from "../../../core/redact.js";
import type { AnyDB } from "../adapter.js";
import { describeWarehouse, type WarehouseTarget } from "../url.js";
import { BoundedClient } from "./connect.js";
import { pgTypes } from "./types.js";

/**
 * Who the read paths log in as on Postgres (docs/read-only.md). A statement handed to us as text
 * can run SQL handed to *it* as text (`query_to_xml('…')`), so no list of refused names keeps a
 * superuser's session safe; a login that holds no power beyond reading does, whatever it runs.
 * `SET ROLE` inside the owner's session would not: a nested statement can set the role back.
 */
export type ReaderLogin =
  /** `--read-db` / SKILLSYNC_READ_DATABASE_URL: a reader login the user made. */
  | { kind: "url"; url: string }
  /** The role `skillsync migrate` made for this warehouse, with its generated password. */
  | { kind: "role"; role: string; password: string }
  /** The warehouse's own login holds no power beyond reading: its pool serves reads too. */
  | { kind: "self" };

/** Reads at once per process and warehouse; more wait for a connection. */
const READER_CONNECTIONS = 4;

/**
 * The reader role of a warehouse: one per database and schema, as roles belong to the whole
 * server. The hash keeps two warehouses apart whatever their names; the schema keeps it legible.
 *
 * @example readerRoleName("warehouse", "public") // "skillsync_read_3f2a9c1e_public"
 */
export function readerRoleName(database: string, schema: string): string {
  const hash = createHash("sha256").update(`${database}\n${schema}`).digest("hex").slice(0, 8);
  return `skillsync_read_${hash}_${schema}`.slice(0, 63);
}

/**
 * The SCRAM-SHA-256 verifier of a password (RFC 5802, 7677), as Postgres stores it: the role is
 * created with the verifier, so the password itself never travels in a statement a server log
 * could keep. md5 in pg_hba.conf still authenticates with it (Postgres then uses SCRAM).
 */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}

/** A password for a generated role: 32 URL-safe characters, registered so it is never printed. */
export function newReaderPassword(): string {
  const password = randomBytes(24).toString("base64url");
  registerSecret(password);
  return password;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The caps a reader session starts with (read paths set tighter time limits per statement). */
const ROLE_SETTINGS: [string, string][] = [
  ["default_transaction_read_only", "on"],
  ["statement_timeout", "'120s'"],
  ["lock_timeout", "'5s'"],
  ["idle_in_transaction_session_timeout", "'60s'"],
  ["work_mem", "'16MB'"],
];

/**
 * Functions every role may call whose effect outlives a rolled-back READ ONLY transaction:
 * `pg_logical_emit_message` writes to the WAL at once (logical-replication consumers receive it,
 * and it grows the WAL), and no privilege of the reader's own can withhold what PUBLIC is granted.
 */
const PUBLIC_WAL_WRITERS = [
  "pg_catalog.pg_logical_emit_message(boolean, text, text)",
  "pg_catalog.pg_logical_emit_message(boolean, text, bytea)",
] as const;

/**
 * Creates (or brings up to date) the reader role of the warehouse in `schema`, inside the caller's
 * transaction, in one round trip: a login with no attribute beyond LOGIN, the caps above, USAGE on
 * the schema and SELECT on its tables and views (now and, by default privileges, those the same
 * owner creates later) and nothing else. Where the owner is a superuser (the only one who may),
 * also `temp_file_limit`, and EXECUTE on the functions above taken from PUBLIC in the database (a
 * role that needs them, a CDC producer, is granted them by name). Says whether PUBLIC may still
 * call them (the owner is no superuser).
 */
export async function ensureReaderRole(
  db: Kysely<AnyDB>,
  o: { role: string; password: string; schema: string; database: string },
): Promise<{ walWritersLeft: boolean }> {
  const r = await sql<{ exists: boolean; superuser: boolean; connect: boolean; emits: boolean }>`select
      exists (select 1 from pg_roles where rolname = ${o.role}) as exists,
      (select rolsuper from pg_roles where rolname = current_user) as superuser,
      has_database_privilege('public', current_database(), 'CONNECT') as connect,
      has_function_privilege('public', ${PUBLIC_WAL_WRITERS[0]!}, 'EXECUTE')
        or has_function_privilege('public', ${PUBLIC_WAL_WRITERS[1]!}, 'EXECUTE') as emits`.execute(db);
  const { exists, superuser, connect, emits } = r.rows[0]!;
  const role = ident(o.role);
  const attributes =
    "login nosuperuser nocreatedb nocreaterole noinherit noreplication nobypassrls connection limit 32";
  // Rows every warehouse of the database shares (the database's, the functions'): two set-ups
  // changing one at once fail with "tuple concurrently updated", so they are changed only when
  // needed, one set-up at a time.
  const shared = [
    ...(connect ? [] : [`grant connect on database ${ident(o.database)} to ${role}`]),
    ...(superuser && emits
      ? PUBLIC_WAL_WRITERS.map((f) => `revoke execute on function ${f} from public`)
      : []),
  ];
  const statements = [
    `${exists ? "alter role" : "create role"} ${role} ${exists ? "with " : ""}${attributes} password '${scramVerifier(o.password)}'`,
    ...ROLE_SETTINGS.map(([name, value]) => `alter role ${role} set ${name} = ${value}`),
    `alter role ${role} set search_path = ${ident(o.schema)}`,
    ...(superuser ? [`alter role ${role} set temp_file_limit = '1GB'`] : []),
    `grant usage on schema ${ident(o.schema)} to ${role}`,
    `grant select on all tables in schema ${ident(o.schema)} to ${role}`,
    `alter default privileges in schema ${ident(o.schema)} grant select on tables to ${role}`,
    ...(shared.length
      ? [`select pg_advisory_xact_lock(hashtextextended('skillsync:database-grants', 0))`]
      : []),
    ...shared,
  ];
  // No parameters: one simple-protocol round trip for all of them, inside the caller's transaction.
  await sql.raw(statements.join(";\n")).execute(db);
  return { walWritersLeft: emits && !superuser };
}

/** Takes every privilege on `table` from every role but its owner (a reader must not see it). */
export async function keepPrivate(db: Kysely<AnyDB>, table: string): Promise<void> {
  const r = await sql<{ grantee: string }>`
    select distinct coalesce(g.rolname, 'public') as grantee
    from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
    cross join lateral aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a
    left join pg_roles g on g.oid = a.grantee
    where c.relname = ${table} and a.grantee <> c.relowner`.execute(db);
  for (const { grantee } of r.rows) {
    const who = grantee === "public" ? "public" : ident(grantee);
    await sql.raw(`revoke all on ${ident(table)} from ${who}`).execute(db);
  }
}

/**
 * What the current login may do beyond reading the warehouse's schema; empty for a reader. Each
 * power listed is one a statement run as text could use past the read-only transaction (files,
 * other sessions, replication slots, configuration) or to change the warehouse.
 */
export async function readerProblems(db: Kysely<AnyDB> | pg.Pool): Promise<string[]> {
  const text = `select r.rolname as name, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolreplication, r.rolbypassrls,
      array(select b.rolname::text from pg_roles b where b.oid < 16384 and b.oid <> r.oid
            and pg_has_role(r.oid, b.oid, 'MEMBER') order by 1) as predefined,
      has_schema_privilege(r.oid, current_schema(), 'CREATE') as creates,
      has_database_privilege(r.oid, current_database(), 'CREATE') as creates_schemas,
      current_schema() as schema
    from pg_roles r where r.rolname = current_user`;
  const row =
    db instanceof pg.Pool
      ? (await db.query(text)).rows[0]
      : (await sql.raw<Record<string, unknown>>(text).execute(db)).rows[0];
  if (!row) return ["is not a role the server knows"];
  // A superuser can do everything: the rest would only lengthen the message.
  if (row["rolsuper"]) return ["is a superuser"];
  const out: string[] = [];
  if (row["rolcreaterole"]) out.push("may create roles");
  if (row["rolcreatedb"]) out.push("may create databases");
  if (row["rolreplication"]) out.push("may start replication");
  if (row["rolbypassrls"]) out.push("bypasses row-level security");
  const predefined = row["predefined"] as string[];
  if (predefined.length)
    out.push(
      `is a member of ${predefined.slice(0, 3).join(", ")}${predefined.length > 3 ? ` and ${predefined.length - 3} more` : ""}`,
    );
  if (row["creates"]) out.push(`may create objects in schema ${String(row["schema"])}`);
  if (row["creates_schemas"]) out.push("may create schemas in the database");
  return out;
}

/**
 * The pool the read paths of one warehouse use, opened on first use from the login `resolve`
 * gives (unless `--read-db` named one) and checked once to hold no power beyond reading. A login
 * that holds more is refused: reads would run with it.
 */
export interface ReaderSlot {
  pool(resolve: (() => Promise<ReaderLogin>) | undefined): Promise<pg.Pool>;
  close(): Promise<void>;
}

export function readerSlot(
  target: Extract<WarehouseTarget, { kind: "postgres" }>,
  owner: pg.Pool,
  readUrl: string | undefined,
): ReaderSlot {
  let opening: Promise<pg.Pool> | undefined;
  let opened: pg.Pool | undefined;
  async function open(resolve: (() => Promise<ReaderLogin>) | undefined): Promise<pg.Pool> {
    const login: ReaderLogin | undefined = readUrl ? { kind: "url", url: readUrl } : await resolve?.();
    if (!login) throw new ConfigurationError("no reader login for this warehouse (docs/read-only.md)");
    if (login.kind === "self") return owner;
    const pool = readerPool(target, login);
    try {
      const problems = await readerProblems(pool);
      if (problems.length) throw notAReader(login, problems);
    } catch (err) {
      await pool.end().catch(() => {});
      if (err instanceof ConfigurationError) throw err;
      throw cannotLogIn(target, login, err);
    }
    opened = pool;
    return pool;
  }
  return {
    pool(resolve) {
      opening ??= open(resolve).catch((err: unknown) => {
        // A failed attempt (the role not set up yet, the server down) is tried again next time.
        opening = undefined;
        throw err;
      });
      return opening;
    },
    async close() {
      await opened?.end().catch(() => {});
    },
  };
}

function readerPool(target: Extract<WarehouseTarget, { kind: "postgres" }>, login: ReaderLogin): pg.Pool {
  const schema = target.schema ? { options: `-c search_path="${target.schema}"` } : {};
  const common = { max: READER_CONNECTIONS, idleTimeoutMillis: 10_000, types: pgTypes, ...schema };
  let url = login.kind === "url" ? login.url : target.connectionString;
  if (login.kind === "role") {
    const u = new URL(url);
    u.username = encodeURIComponent(login.role);
    u.password = encodeURIComponent(login.password);
    url = u.toString();
  }
  const pool = new pg.Pool({ connectionString: url, Client: BoundedClient, ...common });
  // An idle reader ended by another read (a role may end its own sessions) is dropped and replaced.
  pool.on("error", () => {});
  return pool;
}

function loginName(login: ReaderLogin): string {
  if (login.kind === "role") return `role ${login.role}`;
  if (login.kind === "url") {
    const u = new URL(login.url);
    u.password = u.password ? "***" : "";
    return `--read-db ${u.toString()}`;
  }
  return "the warehouse's own login";
}

function notAReader(login: ReaderLogin, problems: string[]): ConfigurationError {
  return new ConfigurationError(
    `read paths log in as ${loginName(login)}, which ${problems.join(", ")}: a statement run through it could use that. Give --read-db (or SKILLSYNC_READ_DATABASE_URL) a login that can only read the warehouse, or let \`skillsync migrate\` make one (docs/read-only.md)`,
  );
}

function cannotLogIn(
  target: Extract<WarehouseTarget, { kind: "postgres" }>,
  login: ReaderLogin,
  err: unknown,
): ConfigurationError {
  const why = err instanceof Error ? err.message : String(err);
  const fix =
    login.kind === "role"
      ? "run `skillsync migrate` with the warehouse's owner to make the role again"
      : "check --read-db / SKILLSYNC_READ_DATABASE_URL";
  return new ConfigurationError(
    `read paths could not log in to ${describeWarehouse(target)} as ${loginName(login)}: ${why}; ${fix} (docs/read-only.md)`,
    { cause: err },
  );
}

/**
 * Drops the reader role of the warehouse in `schema` of the client's database, if there is one:
 * roles belong to the whole server, so whoever drops a warehouse's schema drops its role too.
 */
export async function dropReaderRole(client: pg.ClientBase, schema: string): Promise<void> {
  const { rows } = await client.query<{ db: string }>("select current_database() as db");
  const role = ident(readerRoleName(rows[0]!.db, schema));
  const exists = await client.query("select 1 from pg_roles where rolname = $1", [
    readerRoleName(rows[0]!.db, schema),
  ]);
  if (!exists.rowCount) return;
  await client.query(`drop owned by ${role}`);
  await client.query(`drop role if exists ${role}`);
}
