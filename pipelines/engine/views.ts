import { createHash } from "node:crypto";
import { sql } from "kysely";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ValidationError } from "../../core/errors.js";
import type { LoadedPipeline } from "./load.js";

/**
 * Creates the views a pipeline declares, and re-creates a view whose declared SQL changed; a view
 * the warehouse already has as declared is left alone. Each must be one SELECT.
 *
 * Every run ensures the built-in pipelines' views too, so "left alone" matters: on Postgres,
 * replacing a view waits for every query reading it, and every later reader waits behind that
 * (a long analyst query would hold up each scheduled run). Which definition a view has is marked on
 * it: a comment inside the SQL SQLite keeps, a `COMMENT ON VIEW` on Postgres.
 */
export async function ensureViews(w: Warehouse, p: LoadedPipeline): Promise<void> {
  for (const v of p.views) {
    const body = v.sql.trim().replace(/;\s*$/, "");
    if (!/^(select|with)\b/i.test(body) || body.includes(";")) {
      throw new ValidationError(`pipeline file ${p.file}`, [
        { path: ["views", v.name], message: "must be a single SELECT statement" },
      ]);
    }
    const mark = `skillsync view ${createHash("sha256").update(body).digest("hex").slice(0, 16)}`;
    try {
      if (w.adapter.dialect === "postgres") await ensurePostgresView(w, v.name, body, mark);
      else await ensureSqliteView(w, v.name, body, mark);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      // Another run made the same view at the same moment.
      if (/already exists|tuple concurrently updated|duplicate key/i.test(msg)) continue;
      throw new ValidationError(`pipeline file ${p.file}`, [
        { path: ["views", v.name], message: `cannot be created: ${msg}` },
      ]);
    }
  }
}

async function ensurePostgresView(w: Warehouse, name: string, body: string, mark: string): Promise<void> {
  const r = await sql<{ mark: string | null }>`
    select obj_description(c.oid, 'pg_class') as mark from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where c.relname = ${name} and n.nspname = current_schema() and c.relkind = 'v'`.execute(w.db);
  if (r.rows[0]?.mark === mark) return;
  const replace = (dropFirst: boolean) =>
    w.db.transaction().execute(async (trx) => {
      if (dropFirst) await sql.raw(`drop view if exists "${name}"`).execute(trx);
      await sql.raw(`create or replace view "${name}" as ${body}`).execute(trx);
      await sql.raw(`comment on view "${name}" is '${mark}'`).execute(trx);
    });
  try {
    // Replaced in place where Postgres allows it: views a user built on top of it keep working.
    await replace(false);
  } catch (err) {
    // Columns removed, renamed or retyped: only a new view will do (refused if others depend on it).
    if (!/cannot (drop columns from|change name of|change data type of) view/i.test(String(err))) throw err;
    await replace(true);
  }
}

async function ensureSqliteView(w: Warehouse, name: string, body: string, mark: string): Promise<void> {
  const r = await sql<{ type: string; sql: string | null }>`
    select type, sql from sqlite_master where name = ${name}`.execute(w.db);
  const existing = r.rows[0];
  // A table or index of that name is the user's: left as it is (as before views were re-created).
  if (existing && existing.type !== "view") return;
  if (existing?.sql?.includes(`/* ${mark} */`)) return;
  await w.db.transaction().execute(async (trx) => {
    await sql.raw(`drop view if exists "${name}"`).execute(trx);
    await sql.raw(`create view "${name}" as /* ${mark} */ ${body}`).execute(trx);
  });
}
