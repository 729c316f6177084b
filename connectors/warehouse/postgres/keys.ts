import { type Kysely, sql } from "kysely";
import type { AnyDB } from "../adapter.js";

/** table → its primary key's columns in key order, for the tables of the current schema. */
export async function primaryKeys(db: Kysely<AnyDB>): Promise<Map<string, string[]>> {
  const r = await sql<{ t: string; c: string }>`
    select c.relname as t, a.attname as c
    from pg_constraint k
    join pg_class c on c.oid = k.conrelid
    join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
    cross join lateral unnest(k.conkey) with ordinality u(attnum, pos)
    join pg_attribute a on a.attrelid = c.oid and a.attnum = u.attnum
    where k.contype = 'p'
    order by c.relname, u.pos`.execute(db);
  const out = new Map<string, string[]>();
  for (const row of r.rows) out.set(row.t, [...(out.get(row.t) ?? []), row.c]);
  return out;
}

/** The comments of the current schema's tables and their columns, by `table` and `table.column`. */
export async function comments(db: Kysely<AnyDB>): Promise<Map<string, string>> {
  const r = await sql<{ t: string; c: string | null; d: string }>`
    select c.relname as t, a.attname as c, d.description as d
    from pg_description d
    join pg_class c on c.oid = d.objoid and d.classoid = 'pg_class'::regclass
    join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
    left join pg_attribute a on a.attrelid = c.oid and a.attnum = d.objsubid and d.objsubid > 0
    where c.relkind in ('r', 'p')`.execute(db);
  return new Map(r.rows.map((row) => [row.c === null ? row.t : `${row.t}.${row.c}`, row.d]));
}

/** `COMMENT ON` a table or one of its columns (the text as a literal: COMMENT takes no parameter). */
export async function comment(
  db: Kysely<AnyDB>,
  table: string,
  column: string | undefined,
  text: string,
): Promise<void> {
  const target = column === undefined ? sql`table ${sql.id(table)}` : sql`column ${sql.id(table, column)}`;
  await sql`comment on ${target} is ${sql.lit(text)}`.execute(db);
}

/** `COMMENT ON` a view and each of its columns (`column` says what a column's comment is). */
export async function commentView(
  db: Kysely<AnyDB>,
  view: string,
  text: string,
  column: (name: string) => string,
): Promise<void> {
  await sql`comment on view ${sql.id(view)} is ${sql.lit(text)}`.execute(db);
  const r = await sql<{ name: string }>`
    select a.attname as name from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
    where c.relname = ${view} and a.attnum > 0 and not a.attisdropped
    order by a.attnum`.execute(db);
  for (const { name } of r.rows) {
    await sql`comment on column ${sql.id(view, name)} is ${sql.lit(column(name))}`.execute(db);
  }
}

/** Drops the table's primary key constraint and, with it (cascade), the foreign keys referring to it. */
export async function dropPrimaryKey(db: Kysely<AnyDB>, table: string): Promise<void> {
  const r = await sql<{ name: string }>`
    select k.conname as name from pg_constraint k
    join pg_class c on c.oid = k.conrelid
    join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
    where c.relname = ${table} and k.contype = 'p'`.execute(db);
  const name = r.rows[0]?.name;
  if (name) await sql`alter table ${sql.id(table)} drop constraint ${sql.id(name)} cascade`.execute(db);
}
