import { type Kysely, sql } from "kysely";
import type { AnyDB, NewRows, WarehouseAdapter } from "../adapter.js";
import { ident } from "../bulk.js";

/** Rows a statement: one array per column of at most this many values. */
const ROWS_PER_STATEMENT = 10_000;

/**
 * `WarehouseAdapter.insertNew` on Postgres: each column's values bound as one typed array and
 * unnested, so a statement has as many parameters as columns however many rows it inserts (a
 * multi-row VALUES of 500 alerts was 6,500 parameters, built and sent per statement).
 */
export async function insertNew(
  db: Kysely<AnyDB>,
  adapter: Pick<WarehouseAdapter, "bind" | "sqlType">,
  n: NewRows,
): Promise<unknown[]> {
  const names = n.columns.map((c) => ident(c.name)).join(", ");
  const out: unknown[] = [];
  for (let i = 0; i < n.rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = n.rows.slice(i, i + ROWS_PER_STATEMENT);
    const arrays = n.columns.map(
      (c, j) => sql`${chunk.map((r) => adapter.bind(r[j], c.type))}::${sql.raw(adapter.sqlType(c.type))}[]`,
    );
    const r = await sql<Record<string, unknown>>`insert into ${sql.table(n.table)} (${sql.raw(names)})
      select * from unnest(${sql.join(arrays)})
      on conflict (${sql.ref(n.unique)}) do nothing
      returning ${sql.ref(n.unique)}`.execute(db);
    for (const row of r.rows) out.push(row[n.unique]);
  }
  return out;
}
