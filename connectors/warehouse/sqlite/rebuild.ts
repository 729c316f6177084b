import { type Kysely, sql } from "kysely";
import type { AnyDB } from "../adapter.js";
import { ident } from "../bulk.js";

/** table → its primary key's columns in key order (`pk` of pragma table_info), tables that have one. */
export async function primaryKeys(db: Kysely<AnyDB>): Promise<Map<string, string[]>> {
  const r = await sql<{ t: string; c: string }>`
    select m.name as t, p.name as c from sqlite_master m join pragma_table_info(m.name) p
    where m.type = 'table' and p.pk > 0 order by m.name, p.pk`.execute(db);
  const out = new Map<string, string[]>();
  for (const row of r.rows) out.set(row.t, [...(out.get(row.t) ?? []), row.c]);
  return out;
}

/**
 * SQLite cannot drop a primary key: the table is copied into one made without it (same columns,
 * types and defaults, no NOT NULL), which then takes its name, indexes and triggers, inside the
 * caller's transaction (`trx`). `legacy_alter_table` keeps the rename from checking views on the
 * table, which name it while it is briefly gone (they work again once the copy has its name).
 */
export async function rebuildWithoutPrimaryKey(trx: Kysely<AnyDB>, table: string): Promise<void> {
  const copy = `${table}__rebuild`;
  const cols = await sql<{ name: string; type: string; dflt_value: string | null }>`
      select name, type, dflt_value from pragma_table_info(${table}) order by cid`.execute(trx);
  const others = await sql<{ sql: string }>`
      select sql from sqlite_master
      where tbl_name = ${table} and type in ('index', 'trigger') and sql is not null`.execute(trx);
  const defs = cols.rows.map(
    (c) => `${ident(c.name)} ${c.type}${c.dflt_value === null ? "" : ` default ${c.dflt_value}`}`,
  );
  const names = cols.rows.map((c) => ident(c.name)).join(", ");
  await sql.raw(`create table ${ident(copy)} (${defs.join(", ")})`).execute(trx);
  await sql.raw(`insert into ${ident(copy)} (${names}) select ${names} from ${ident(table)}`).execute(trx);
  await sql.raw(`drop table ${ident(table)}`).execute(trx);
  await sql`pragma legacy_alter_table = on`.execute(trx);
  try {
    await sql.raw(`alter table ${ident(copy)} rename to ${ident(table)}`).execute(trx);
  } finally {
    await sql`pragma legacy_alter_table = off`.execute(trx);
  }
  for (const o of others.rows) await sql.raw(o.sql).execute(trx);
}
