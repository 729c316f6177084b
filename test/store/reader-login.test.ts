import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { readerRoleName } from "../../connectors/warehouse/postgres/reader.js";
import { ConfigurationError } from "../../core/errors.js";
import { readWarehouse } from "../../engine/define/warehouse-reads.js";
import { migrateToLatest } from "../../store/migrate.js";
import { setUpReader } from "../../store/reader-login.js";
import { cli } from "../helpers/cli.js";
import { freshWarehouseUrl, PG_URL, unavailable } from "../helpers/warehouses.js";

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c().catch(() => {});
});

async function warehouse(url: string, o: { readUrl?: string } = {}): Promise<Warehouse> {
  const w = await openWarehouse(url, o);
  open.push(() => w.close());
  return w;
}

async function admin(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  open.push(() => c.end());
  return c;
}

/** The reader role of a warehouse, as the server knows it. */
async function roleOf(c: pg.Client, w: Warehouse) {
  const name = readerRoleName("test", w.adapter.schema!);
  const r = await c.query(
    `select a.rolname, a.rolsuper, a.rolcreaterole, a.rolcreatedb, a.rolreplication, a.rolbypassrls, a.rolinherit,
       a.rolcanlogin, r.rolconfig, left(a.rolpassword, 14) as verifier
     from pg_authid a join pg_roles r on r.oid = a.oid where a.rolname = $1`,
    [name],
  );
  return r.rows[0];
}

describe.skipIf(unavailable("postgres"))("the reader role of a Postgres warehouse", () => {
  it("is made on the first migration: a login with no power but reading the warehouse's schema", async () => {
    const url = freshWarehouseUrl("postgres");
    const c = await admin();
    // As a new server has it (an earlier setup of this database took it away).
    for (const args of ["boolean, text, text", "boolean, text, bytea"])
      await c.query(`grant execute on function pg_catalog.pg_logical_emit_message(${args}) to public`);
    const w = await warehouse(url);
    await migrateToLatest(w);
    await sql`create table user_rows (x integer)`.execute(w.db);
    await sql`insert into user_rows values (1), (2)`.execute(w.db);
    const role = await roleOf(c, w);
    expect(role).toMatchObject({
      rolsuper: false,
      rolcreaterole: false,
      rolcreatedb: false,
      rolreplication: false,
      rolbypassrls: false,
      rolinherit: false,
      rolcanlogin: true,
      verifier: "SCRAM-SHA-256$",
    });
    expect(role.rolconfig).toEqual(
      expect.arrayContaining([
        "default_transaction_read_only=on",
        "temp_file_limit=1GB",
        `search_path=${w.adapter.schema}`,
      ]),
    );
    // Every read path logs in as it; tables made after it are readable (default privileges).
    expect(await readWarehouse(w, "select current_user as u, count(*) as n from user_rows")).toEqual([
      { u: role.rolname, n: 2 },
    ]);
    // Its password is kept where only the owner reads it.
    await expect(readWarehouse(w, "select * from skillsync_reader_login")).rejects.toThrow(
      /permission denied/,
    );
    const grants = await c.query(
      `select grantee, privilege_type from information_schema.role_table_grants
       where table_schema = $1 and grantee = $2 and privilege_type <> 'SELECT'`,
      [w.adapter.schema, role.rolname],
    );
    expect(grants.rows).toEqual([]);
    // The one function every role may call that writes the WAL past a rollback is PUBLIC's no more.
    const emit = await c.query(
      "select bool_or(has_function_privilege($1, oid, 'EXECUTE')) as may from pg_proc where proname = 'pg_logical_emit_message'",
      [role.rolname],
    );
    expect(emit.rows[0].may).toBe(false);
  });

  it("is made once when several processes set it up at once, and every one of them logs in", async () => {
    const url = freshWarehouseUrl("postgres");
    const first = await warehouse(url);
    await sql`create schema if not exists ${sql.id(first.adapter.schema!)}`.execute(first.db);
    const others = await Promise.all([0, 1, 2, 3].map(() => warehouse(url)));
    const setups = await Promise.all(others.map((w) => setUpReader(w)));
    expect(setups.filter((s) => "role" in s && s.created)).toHaveLength(1);
    for (const w of others) {
      const [row] = await readWarehouse(w, "select current_user as u");
      expect(row!["u"]).toBe(readerRoleName("test", w.adapter.schema!));
    }
  });

  it("is made for warehouses of one database set up at once, each its own (rows they share, changed in turn)", async () => {
    const c = await admin();
    // Each set-up then takes PUBLIC's EXECUTE from the same function rows.
    for (const args of ["boolean, text, text", "boolean, text, bytea"])
      await c.query(`grant execute on function pg_catalog.pg_logical_emit_message(${args}) to public`);
    const ws = await Promise.all([0, 1, 2, 3, 4].map(() => warehouse(freshWarehouseUrl("postgres"))));
    const setups = await Promise.all(ws.map((w) => setUpReader(w)));
    expect(setups.map((s) => ("role" in s ? s.walWriters : s.refused))).toEqual(Array(5).fill("revoked"));
    for (const w of ws) {
      const [row] = await readWarehouse(w, "select current_user as u");
      expect(row!["u"]).toBe(readerRoleName("test", w.adapter.schema!));
    }
  });

  it("migrate says which role read paths log in as; `sql` logged in as that reader reads as itself", async () => {
    const url = freshWarehouseUrl("postgres");
    const r = await cli(["migrate", "--db", url]);
    expect(r.code, r.err).toBe(0);
    const schema = new URL(url).searchParams.get("schema")!;
    const role = readerRoleName("test", schema);
    expect(r.out).toContain(`log in as role ${role}`);
    const again = await cli(["migrate", "--db", url]);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toMatch(new RegExp(`as role ${role}$`, "m"));
    const asReader = new URL(url);
    asReader.username = role;
    const read = await cli(["sql", "select current_user as u", "--db", asReader.toString(), "--json"]);
    expect(read.code, read.err).toBe(0);
    expect(JSON.parse(read.out)).toEqual([{ u: role }]);
  });

  it("without a role that may make one, read paths refuse and say how to set one up (exit 2)", async () => {
    const url = freshWarehouseUrl("postgres");
    const owner = `owner_${randomBytes(4).toString("hex")}`;
    const c = await admin();
    await c.query(`create role ${owner} login nosuperuser nocreaterole`);
    open.push(async () => {
      await c.query(`drop owned by ${owner}`);
      await c.query(`drop role ${owner}`);
    });
    const schema = new URL(url).searchParams.get("schema")!;
    await c.query(`create schema "${schema}" authorization ${owner}`);
    const asOwner = new URL(url);
    asOwner.username = owner;
    const w = await warehouse(asOwner.toString());
    await migrateToLatest(w);
    const refused = readWarehouse(w, "select 1 as x");
    await expect(refused).rejects.toBeInstanceOf(ConfigurationError);
    await expect(refused).rejects.toThrow(/may create objects in schema.*CREATEROLE.*--read-db/);
    const r = await cli(["sql", "select 1 as x", "--db", asOwner.toString()]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/skillsync migrate/);
  });
});
