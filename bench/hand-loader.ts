/**
 * Figure 3's hand-written reference (issue 31): what a competent engineer writes to load
 * marketplace-search pages into SQLite without skillsync. Node's global fetch (undici's) POSTs
 * each keyword, `res.json()`, each product mapped to a row by hand, and the page's rows written at
 * once (one transaction of prepared `INSERT … ON CONFLICT DO UPDATE`): a hand loader keeps each
 * page as soon as it has it. Its rows go into the table skillsync's runs fill (the built-in
 * pipeline's, which has no child tables), as the raw write's do, keywords "hand …": an index
 * insert costs more in a larger B-tree, so a table of its own, smaller than skillsync's, would
 * flatter it. skillsync's bookkeeping columns (extra, run_id, loaded_at, load_id) stay null: a
 * hand loader has no runs. On a connection with the warehouse's own settings.
 */
import SQLite from "better-sqlite3";
import { setWarehousePragmas } from "../connectors/warehouse/open.js";
import { DEMO_KEY } from "../emulator/index.js";

const TABLE = "marketplace_search_results";

interface Product {
  position?: number | null;
  asin?: string | null;
  title?: string | null;
  price?: string | null;
  extractedPrice?: number | null;
  oldPrice?: string | null;
  extractedOldPrice?: number | null;
  extractedPriceUnit?: string | null;
  rating?: number | null;
  ratings?: number | null;
  monthlySalesUnits?: number | null;
  sponsored?: boolean | null;
  snapEbtEligible?: boolean | null;
  imageUrl?: string | null;
  asinUrl?: string | null;
  availableDate?: string | null;
}

interface Answer {
  code: number;
  msg?: string;
  data?: { products?: Product[] };
}

// better-sqlite3 binds no booleans.
const bit = (b: boolean | null | undefined) => (b == null ? null : b ? 1 : 0);

/** The pipeline's mapping, by hand: the page's request, the answer's arrival, the product's fields. */
function row(keyword: string, observedAt: string, p: Product, i: number) {
  return {
    keyword,
    page: 1,
    item_index: i + 1,
    observed_at: observedAt,
    position: p.position ?? null,
    asin: p.asin ?? null,
    title: p.title ?? null,
    price_text: p.price ?? null,
    price: p.extractedPrice ?? null,
    old_price_text: p.oldPrice ?? null,
    old_price: p.extractedOldPrice ?? null,
    price_unit: p.extractedPriceUnit ?? null,
    rating: p.rating ?? null,
    ratings: p.ratings ?? null,
    monthly_sales_units: p.monthlySalesUnits ?? null,
    sponsored: bit(p.sponsored),
    snap_ebt_eligible: bit(p.snapEbtEligible),
    image_url: p.imageUrl ?? null,
    asin_url: p.asinUrl ?? null,
    available_date: p.availableDate ?? null,
  };
}

function upsertSql(): string {
  // The row's own keys: the statement and the mapping cannot drift apart.
  const columns = Object.keys(row("", "", {}, 0));
  const key = ["keyword", "page", "item_index", "observed_at"];
  const set = columns.filter((c) => !key.includes(c)).map((c) => `${c} = excluded.${c}`);
  return `insert into ${TABLE} (${columns.join(", ")}) values (${columns.map((c) => `@${c}`).join(", ")})
    on conflict (${key.join(", ")}) do update set ${set.join(", ")}`;
}

async function search(url: string, keyword: string): Promise<Product[]> {
  const res = await fetch(`${url}/api/skill-api/v1/skills/marketplace-search/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${DEMO_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ keyword, page: 1 }),
  });
  const answer = (await res.json()) as Answer;
  if (answer.code !== 0) throw new Error(`marketplace-search ${keyword}: ${answer.code} ${answer.msg}`);
  return answer.data?.products ?? [];
}

/**
 * One call per keyword, `concurrency` in flight, into the hand table of the SQLite file at `path`.
 * Returns the rows written.
 */
export async function handLoad(
  url: string,
  path: string,
  keywords: string[],
  concurrency: number,
): Promise<number> {
  const db = new SQLite(path);
  try {
    setWarehousePragmas(db);
    const upsert = db.prepare(upsertSql());
    const writePage = db.transaction((rows: ReturnType<typeof row>[]) => {
      for (const r of rows) upsert.run(r);
    });
    let next = 0;
    let written = 0;
    const worker = async () => {
      while (next < keywords.length) {
        const keyword = keywords[next++]!;
        const products = await search(url, keyword);
        const observedAt = new Date().toISOString();
        writePage(products.map((p, i) => row(keyword, observedAt, p, i)));
        written += products.length;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return written;
  } finally {
    db.close();
  }
}

/** The hand loader's rows in the table: the bench's check that its loads landed. */
export function handRowCount(path: string): number {
  const db = new SQLite(path, { readonly: true });
  try {
    // A range of the key's first column, so the primary key's index answers it.
    const count = db.prepare(
      `select count(*) as n from ${TABLE} where keyword >= 'hand ' and keyword < 'hand!'`,
    );
    return (count.get() as { n: number }).n;
  } finally {
    db.close();
  }
}
