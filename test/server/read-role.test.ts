import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { ConfigurationError } from "../../core/errors.js";
import { readWarehouse } from "../../engine/define/warehouse-reads.js";
import { freshWarehouseUrl, PG_URL, unavailable } from "../helpers/warehouses.js";
import { startTestServer } from "./helpers.js";

// docs/read-only.md: the least-privilege role recommended for the server's table views. The SQL
// here is the documented SQL (role name and schema filled in), so the documentation is tested.
export function readerRoleSql(role: string, database: string, schema: string, owner: string): string[] {
  return [
    `create role ${role} login nosuperuser nocreatedb nocreaterole noinherit`,
    `alter role ${role} set default_transaction_read_only = on`,
    `alter role ${role} set statement_timeout = '30s'`,
    `alter role ${role} set lock_timeout = '5s'`,
    `alter role ${role} set idle_in_transaction_session_timeout = '60s'`,
    `grant connect on database ${database} to ${role}`,
    `grant usage on schema ${schema} to ${role}`,
    `grant select on all tables in schema ${schema} to ${role}`,
    `alter default privileges for role ${owner} in schema ${schema} grant select on tables to ${role}`,
    `revoke select on ${["skillsync_budgets", "skillsync_budget_settings", "skillsync_calls", "skillsync_responses", "skillsync_response_chunks"].map((t) => `${schema}.${t}`).join(", ")} from ${role}`,
  ];
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

describe.skipIf(unavailable("postgres"))("a least-privilege role for reading", () => {
  it("serves GET /tables through it, and the role itself refuses what the check does", async () => {
    const url = freshWarehouseUrl("postgres");
    const owner = await openWarehouse(url);
    cleanups.push(() => owner.close());
    const { migrateToLatest } = await import("../../store/migrate.js");
    await migrateToLatest(owner);
    await sql`create table user_rows (x integer primary key)`.execute(owner.db);
    await sql`insert into user_rows (x) values (1), (2), (3)`.execute(owner.db);

    const role = `skillsync_reader_${randomBytes(4).toString("hex")}`;
    const schema = owner.adapter.schema!;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    cleanups.push(async () => {
      await admin.query(`drop owned by ${role}`).catch(() => {});
      await admin.query(`drop role if exists ${role}`).catch(() => {});
      await admin.end();
    });
    const db = (await admin.query("select current_database() as d, current_user as u")).rows[0];
    for (const statement of readerRoleSql(role, db.d, schema, db.u)) await admin.query(`${statement}`);
    // The owner's later tables are readable too (default privileges).
    await sql`create table later_rows (y text)`.execute(owner.db);
    await sql`insert into later_rows (y) values ('a')`.execute(owner.db);

    const readerUrl = new URL(url);
    readerUrl.username = role;
    const reader: Warehouse = await openWarehouse(readerUrl.toString());
    cleanups.push(() => reader.close());

    // `serve --read-db`: the server writes as the owner, and reads as the role the docs make.
    const viaReader = await openWarehouse(url, { readUrl: readerUrl.toString() });
    cleanups.push(() => viaReader.close());
    const served = await startTestServer("postgres", { warehouse: viaReader });
    const page = await served.call("GET", "/tables/user_rows?limit=2");
    expect(page.status, page.text).toBe(200);
    expect(page.json.rows).toEqual([{ x: 1 }, { x: 2 }]);
    expect(page.json.total).toBe(3);
    expect((await served.call("GET", "/tables/later_rows")).json.rows).toEqual([{ y: "a" }]);

    // The role is the fence that cannot be talked around, even by SQL the check lets through.
    await expect(sql`insert into user_rows (x) values (9)`.execute(reader.db)).rejects.toThrow(
      /read-only transaction|permission denied/,
    );
    await expect(sql`select * from skillsync_budgets`.execute(reader.db)).rejects.toThrow(
      /permission denied/,
    );
    await expect(sql`select pg_read_file('/etc/hostname')`.execute(reader.db)).rejects.toThrow(
      /permission denied/,
    );
    await expect(sql`select pg_reload_conf()`.execute(reader.db)).rejects.toThrow(/permission denied/);
    const settings = (
      await sql<{ ro: string; st: string }>`
      select current_setting('default_transaction_read_only') as ro, current_setting('statement_timeout') as st`.execute(
        reader.db,
      )
    ).rows[0];
    expect(settings).toEqual({ ro: "on", st: "30s" });
    // Connected as the reader itself (`--db` its URL), reads need no other login.
    expect(await readWarehouse(reader, "select count(*) as n from user_rows")).toEqual([{ n: 3 }]);
    // With --read-db, every read path of the owner's warehouse logs in as it.
    expect(await readWarehouse(viaReader, "select current_user as u")).toEqual([{ u: role }]);
  });

  it("refuses a --read-db login that can do more than read (a superuser), saying what to do", async () => {
    const url = freshWarehouseUrl("postgres");
    const w = await openWarehouse(url, { readUrl: url });
    cleanups.push(() => w.close());
    const { migrateToLatest } = await import("../../store/migrate.js");
    await migrateToLatest(w);
    const refused = readWarehouse(w, "select 1 as x");
    await expect(refused).rejects.toBeInstanceOf(ConfigurationError);
    await expect(refused).rejects.toThrow(/--read-db .* which is a superuser.*only read/);
  });
});
