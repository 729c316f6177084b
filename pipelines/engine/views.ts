import { sql } from "kysely";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ValidationError } from "../../core/errors.js";
import type { LoadedPipeline } from "./load.js";

/** Creates (or, on Postgres, replaces) the views a pipeline declares; each must be one SELECT. */
export async function ensureViews(w: Warehouse, p: LoadedPipeline): Promise<void> {
  for (const v of p.views) {
    const body = v.sql.trim().replace(/;\s*$/, "");
    if (!/^(select|with)\b/i.test(body) || body.includes(";")) {
      throw new ValidationError(`pipeline file ${p.file}`, [
        { path: ["views", v.name], message: "must be a single SELECT statement" },
      ]);
    }
    const create = w.adapter.dialect === "postgres" ? "create or replace view" : "create view if not exists";
    try {
      await sql.raw(`${create} "${v.name}" as ${body}`).execute(w.db);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      if (/already exists|tuple concurrently updated|duplicate key/i.test(msg)) continue;
      throw new ValidationError(`pipeline file ${p.file}`, [
        { path: ["views", v.name], message: `cannot be created: ${msg}` },
      ]);
    }
  }
}
