import { sql } from "kysely";
import type { Warehouse } from "../../../connectors/warehouse/open.js";

/** The content of the tables a run loads, without what differs between runs (run ids, load times). */
const CONTENT: Record<string, string> = {
  marketplace_search_results: "keyword, page, item_index, asin, position, price",
  patent_search_results: "query, page, position, publication_number",
  patent_bibliography: "publication_number, title",
  patent_applicants: "publication_number, position, name",
  patent_legal_status: "publication_number, legal_status",
  patent_legal_events: "publication_number, position, event_code",
  ads_sp_search_impression_share:
    "connection_id, report_part, report_row, date, campaign_name, search_term, impressions, spend",
};

export type Snapshot = Record<string, string[]>;

export async function rows<T = Record<string, unknown>>(w: Warehouse, query: string): Promise<T[]> {
  return (await sql.raw<T>(query).execute(w.db)).rows;
}

/** Every row of each table as one line of text, sorted (a multiset: duplicates stay). */
export async function snapshot(w: Warehouse, tables: Record<string, string> = CONTENT): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const [table, cols] of Object.entries(tables)) {
    const list = await rows(w, `select ${cols} from ${table}`);
    out[table] = list.map((r) => JSON.stringify(Object.values(r))).sort();
  }
  return out;
}

/** Rows present more often than expected (duplicates) and rows missing (lost), table by table. */
export function compare(
  expected: Snapshot,
  got: Snapshot,
): { duplicates: number; lost: number; detail: string[] } {
  let duplicates = 0;
  let lost = 0;
  const detail: string[] = [];
  for (const [table, want] of Object.entries(expected)) {
    const counts = new Map<string, number>();
    for (const r of want) counts.set(r, (counts.get(r) ?? 0) + 1);
    for (const r of got[table] ?? []) counts.set(r, (counts.get(r) ?? 0) - 1);
    let d = 0;
    let l = 0;
    for (const n of counts.values()) {
      if (n < 0) d -= n;
      if (n > 0) l += n;
    }
    if (d || l) detail.push(`${table}: ${d} extra, ${l} missing`);
    duplicates += d;
    lost += l;
  }
  return { duplicates, lost, detail };
}
