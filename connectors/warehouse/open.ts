import { readConfig } from "../../core/env-config.js";
import { openPostgres } from "./postgres/open.js";
import { openSqlite } from "./sqlite/open.js";
import { parseWarehouseUrl } from "./url.js";
import type { Warehouse } from "./warehouse.js";

export type { AnyDB } from "./adapter.js";
export type { WarehouseTx } from "./bulk.js";
export { setWarehousePragmas } from "./sqlite/open.js";
export type { Warehouse } from "./warehouse.js";

/**
 * Opens the warehouse named by a URL (or DATABASE_URL, or ./skillsync.db).
 *
 * @example
 * const w = await openWarehouse("postgres://postgres@127.0.0.1/test?schema=demo");
 * await w.db.selectFrom("skillsync_runs").selectAll().execute();
 * await w.close();
 */
export async function openWarehouse(
  url?: string,
  o: {
    existing?: boolean;
    /** A reader login for the read paths (`--read-db`; default SKILLSYNC_READ_DATABASE_URL). */
    readUrl?: string | undefined;
    /**
     * Open to read, changing nothing (`plan`): no SQLite file, folder or WAL switch, no Postgres
     * schema; every session refuses writes. A warehouse that is not there reads as an empty one.
     */
    readOnly?: boolean;
  } = {},
): Promise<Warehouse> {
  const target = parseWarehouseUrl(url);
  // The one choice of dialect outside its folders: by the URL (url.ts).
  if (target.kind === "sqlite") return openSqlite(target, o);
  const readUrl = o.readUrl ?? readConfig().readDatabaseUrl;
  return openPostgres(target, { ...o, readUrl });
}
