import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { ColumnDef, TableDef } from "../../../schema/table.js";
import type { WarehouseAdapter } from "../adapter.js";
import { type BulkRow, type BulkWriter, ident, updatable } from "../bulk.js";
import { type CopyEncoder, copyEncoder } from "./copy-csv.js";
import { SMALL_BATCH_VALUES, smallBatchInsert } from "./values.js";

/** The staging table's arrival order: the last row of a key wins. */
const SEQ = "skillsync_seq";
/** Rows per string written to the COPY stream: big enough for few writes, small enough to stay flat. */
const ROWS_PER_CHUNK = 500;

function* lines(rows: readonly BulkRow[], encoder: CopyEncoder): Generator<string> {
  for (let i = 0; i < rows.length; i += ROWS_PER_CHUNK) {
    yield encoder.encode(rows, i, Math.min(rows.length, i + ROWS_PER_CHUNK));
  }
}

async function copyInto(
  client: pg.ClientBase,
  table: string,
  columns: readonly ColumnDef[],
  rows: readonly BulkRow[],
  withSeq: boolean,
): Promise<void> {
  const names = [...(withSeq ? [SEQ] : []), ...columns.map((c) => c.name)].map(ident).join(", ");
  const stream = client.query(copyFrom(`copy ${ident(table)} (${names}) from stdin with (format csv)`));
  await pipeline(Readable.from(lines(rows, copyEncoder(columns, withSeq)), { objectMode: false }), stream);
}

// Staging tables live as long as their connection: created once (ON COMMIT DELETE ROWS empties
// them at each commit), so a batch costs no DDL and no catalog churn. Per client: shape → name.
const staged = new WeakMap<pg.ClientBase, { shapes: Map<string, string>; made: number }>();

/** The staging tables one writer (one transaction) uses, over those its client keeps. */
interface TxStaging {
  readonly client: pg.ClientBase;
  /** The client's: table shape → staging table name, and how many it made. */
  readonly perClient: { shapes: Map<string, string>; made: number };
  /** Shapes whose staging table this transaction made (gone again if it rolls back). */
  readonly createdNow: string[];
  /** Staging tables this transaction filled. */
  readonly usedNow: Set<string>;
}

function txStaging(client: pg.ClientBase): TxStaging {
  let perClient = staged.get(client);
  if (!perClient) {
    perClient = { shapes: new Map(), made: 0 };
    staged.set(client, perClient);
  }
  return { client, perClient, createdNow: [], usedNow: new Set() };
}

/** The empty staging table of `def`'s shape, made on first use with the target's own column types. */
async function stage(st: TxStaging, def: TableDef): Promise<string> {
  const shape = `${def.name}\u0000${def.columns.map((c) => c.name).join(",")}`;
  let name = st.perClient.shapes.get(shape);
  if (name === undefined) {
    name = `skillsync_stage_${++st.perClient.made}`;
    const cols = def.columns.map((c) => ident(c.name)).join(", ");
    // The target's own column types: COPY text is read exactly as the table would read it.
    await st.client.query(
      `create temporary table ${ident(name)} on commit delete rows as
         select 0::integer as ${ident(SEQ)}, ${cols} from ${ident(def.name)} with no data`,
    );
    st.perClient.shapes.set(shape, name);
    st.createdNow.push(shape);
  } else if (st.usedNow.has(name)) {
    // The same table twice in one transaction (a report part's batches): start empty again.
    await st.client.query(`truncate ${ident(name)}`);
  }
  st.usedNow.add(name);
  return name;
}

/**
 * An upsert of many rows: `COPY` into the staging table, then ONE statement merges it, `DISTINCT
 * ON` the key, newest arrival first, so a key twice in a batch never makes `ON CONFLICT DO UPDATE`
 * touch a row twice. Returns the rows written.
 */
async function upsertThroughStage(st: TxStaging, def: TableDef, rows: readonly BulkRow[]): Promise<number> {
  const staging = await stage(st, def);
  await copyInto(st.client, staging, def.columns, rows, true);
  const cols = def.columns.map((c) => ident(c.name)).join(", ");
  const key = def.key.map(ident).join(", ");
  const set = updatable(def).map((c) => `${ident(c)} = excluded.${ident(c)}`);
  const r = await st.client.query(
    `insert into ${ident(def.name)} (${cols})
         select distinct on (${key}) ${cols} from ${ident(staging)} order by ${key}, ${ident(SEQ)} desc
         on conflict (${key}) ${set.length ? `do update set ${set.join(", ")}` : "do nothing"}`,
  );
  return r.rowCount ?? 0;
}

/** `BulkWriter.deleteMatching`: the keys bound as one array per key column. */
async function deleteMatching(
  session: PgSession,
  adapter: WarehouseAdapter,
  def: TableDef,
  key: readonly string[],
  keys: readonly BulkRow[],
): Promise<void> {
  if (!keys.length || !key.length) return;
  const types = key.map((k) => def.columns.find((c) => c.name === k)?.type ?? "text");
  const arrays = key.map((k, i) => keys.map((r) => adapter.bind(r[k], types[i]!)));
  const casts = types.map((t, i) => `$${i + 1}::${adapter.sqlType(t)}[]`);
  const where =
    key.length === 1
      ? `${ident(key[0]!)} = any(${casts[0]})`
      : `(${key.map(ident).join(", ")}) in (select * from unnest(${casts.join(", ")}))`;
  await session.query(`delete from ${ident(def.name)} where ${where}`, arrays);
}

/**
 * The writer's way to its transaction's client: statements through `query` (it may carry the
 * transaction's owed BEGIN along), anything else on `client` once `ready()` has sent BEGIN.
 */
export interface PgSession {
  readonly client: pg.ClientBase;
  query(text: string, values?: readonly unknown[]): Promise<pg.QueryResult>;
  ready(): Promise<void>;
}

/** A bulk writer that can be told its transaction rolled back (staging tables made in it are gone). */
export interface PgBulkWriter extends BulkWriter {
  rolledBack(): void;
}

/**
 * Postgres's bulk writer, bound to one client inside one transaction. A small batch (at most
 * `smallBatchValues` values, rows × columns) is one multi-row `INSERT … VALUES` (pg-values.ts):
 * a marketplace page of ~20 rows costs one round trip instead of three. Larger ones: inserts
 * `COPY` straight into the table; upserts `COPY` into a temporary staging table of the target's
 * own column types and merge in ONE statement: `DISTINCT ON` the key, newest arrival first, so a
 * key twice in a batch never makes `ON CONFLICT DO UPDATE` touch a row twice.
 *
 * @example
 * await w.transaction(async (tx) => tx.bulk.write(def, rows, "upsert"));
 */
export function postgresBulkWriter(
  session: PgSession,
  adapter: WarehouseAdapter,
  options: { smallBatchValues?: number } = {},
): PgBulkWriter {
  const smallBatchValues = options.smallBatchValues ?? SMALL_BATCH_VALUES;
  const staging = txStaging(session.client);
  return {
    async write(def, rows, how) {
      if (!rows.length) return 0;
      if (rows.length * def.columns.length <= smallBatchValues) {
        const q = smallBatchInsert(def, rows, how);
        const r = await session.query(q.text, q.values);
        return how === "insert" ? rows.length : (r.rowCount ?? 0);
      }
      await session.ready();
      if (how === "upsert") return upsertThroughStage(staging, def, rows);
      await copyInto(session.client, def.name, def.columns, rows, false);
      return rows.length;
    },
    deleteMatching: (def, key, keys) => deleteMatching(session, adapter, def, key, keys),
    rolledBack() {
      for (const shape of staging.createdNow) staging.perClient.shapes.delete(shape);
    },
  };
}
