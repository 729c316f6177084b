import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { rows } from "./snapshot.js";

/** Every table and view of a warehouse with its row count: equal fingerprints, nothing written. */
export async function fingerprint(w: Warehouse): Promise<Record<string, number>> {
  const names =
    w.adapter.dialect === "sqlite"
      ? await rows<{ name: string }>(
          w,
          "select name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%'",
        )
      : await rows<{ name: string }>(
          w,
          "select table_name as name from information_schema.tables where table_schema = current_schema()",
        );
  const out: Record<string, number> = {};
  for (const { name } of names) {
    const r = await rows<{ n: number }>(w, `select count(*) as n from "${name}"`);
    out[name] = Number(r[0]?.n ?? 0);
  }
  return out;
}
