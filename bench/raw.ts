/**
 * The references for load throughput: the raw drivers doing the same upserts as skillsync, with
 * no library in between. They get rows already typed (the mapping's output, made before timing),
 * so they measure the database and driver alone; skillsync's figure includes normalising.
 * - SQLite: better-sqlite3 prepared statements, one transaction per group of responses.
 * - Postgres: one transaction per group of responses; per table (all the group's rows) COPY into a temporary staging table (made
 *   once per connection, emptied at commit), then one INSERT … SELECT … ON CONFLICT DO UPDATE
 *   (children: delete the parents' rows first).
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import SQLite from "better-sqlite3";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { setWarehousePragmas } from "../connectors/warehouse/open.js";
import { postgresAdapter } from "../connectors/warehouse/postgres/adapter.js";
import type { TableDef } from "../schema/table.js";

type Row = Record<string, unknown>;
export interface RawBatch {
  /** Tables in write order, parent first, with their rows. */
  tables: { def: TableDef; rows: Row[]; deleteByParentKey: readonly string[] | undefined }[];
}

const q = (s: string) => `"${s}"`;
const updateSet = (def: TableDef) =>
  def.columns
    .filter((c) => !def.key.includes(c.name))
    .map((c) => `${q(c.name)} = excluded.${q(c.name)}`)
    .join(", ");

export function rawSqliteLoader(path: string) {
  const db = new SQLite(path);
  // The warehouse's own settings, checkpoint interval included: with SQLite's default (every
  // ~4 MB of WAL) the reference paid checkpoints skillsync does not.
  setWarehousePragmas(db);
  const statements = new Map<string, SQLite.Statement<unknown[]>>();
  const stmt = (text: string) => {
    let s = statements.get(text);
    if (!s) {
      s = db.prepare<unknown[]>(text);
      statements.set(text, s);
    }
    return s;
  };
  const load = db.transaction((group: RawBatch[]) => {
    for (const { def, rows, deleteByParentKey } of group.flatMap((b) => b.tables)) {
      const cols = def.columns;
      if (deleteByParentKey) {
        const del = stmt(
          `delete from ${q(def.name)} where ${deleteByParentKey.map((k) => `${q(k)} = ?`).join(" and ")}`,
        );
        const seen = new Set<string>();
        for (const r of rows) {
          const key = deleteByParentKey.map((k) => r[k]);
          const id = JSON.stringify(key);
          if (!seen.has(id)) {
            seen.add(id);
            del.run(key);
          }
        }
      }
      const insert = stmt(
        `insert into ${q(def.name)} (${cols.map((c) => q(c.name)).join(", ")}) values (${cols.map(() => "?").join(", ")}) on conflict (${def.key.map(q).join(", ")}) do update set ${updateSet(def)}`,
      );
      for (const r of rows) {
        insert.run(
          cols.map((c) => {
            const v = r[c.name];
            if (v === null || v === undefined) return null;
            if (c.type === "boolean") return v ? 1 : 0;
            if (c.type === "json") return JSON.stringify(v);
            return v;
          }),
        );
      }
    }
  });
  return {
    load: async (group: RawBatch[]) => load(group),
    close: async () => db.close(),
  };
}

function csvLine(r: Row, def: TableDef): string {
  return def.columns
    .map((c) => {
      const v = r[c.name];
      if (v === null || v === undefined) return "";
      if (typeof v === "number") return String(v);
      if (typeof v === "boolean") return v ? "t" : "f";
      const s = typeof v === "string" && c.type !== "json" ? v : JSON.stringify(v);
      return `"${s.replaceAll('"', '""')}"`;
    })
    .join(",");
}

/**
 * A group's batches as one, the way a raw COPY loader would send them: per table every row once,
 * the last row of a key kept (an upsert cannot meet a key twice in one statement).
 */
function oneBatch(group: RawBatch[]): RawBatch {
  if (group.length === 1) return group[0]!;
  return {
    tables: group[0]!.tables.map((t, i) => {
      const rows = group.flatMap((b) => b.tables[i]!.rows);
      if (!t.def.key.length) return { ...t, rows };
      const byKey = new Map(rows.map((r) => [JSON.stringify(t.def.key.map((k) => r[k])), r]));
      return { ...t, rows: [...byKey.values()] };
    }),
  };
}

export async function rawPostgresLoader(connectionString: string, schema: string) {
  const client = new pg.Client({ connectionString, options: `-c search_path="${schema}"` });
  await client.connect();
  // The warehouse's own column types: the reference writes the same table skillsync writes.
  const { sqlType } = postgresAdapter(schema);
  // Staging tables made once per connection and emptied at each commit: the cheapest raw COPY path.
  const staging = new Map<string, string>();
  return {
    async load(group: RawBatch[]) {
      await client.query("begin");
      for (const { def, rows, deleteByParentKey } of oneBatch(group).tables) {
        if (deleteByParentKey && deleteByParentKey.length !== 1)
          throw new Error("one-column parent keys only");
        if (deleteByParentKey?.length === 1) {
          const k = deleteByParentKey[0]!;
          await client.query(`delete from ${q(def.name)} where ${q(k)} = any($1)`, [
            [...new Set(rows.map((r) => r[k]))],
          ]);
        }
        if (!rows.length) continue;
        let stage = staging.get(def.name);
        const cols = def.columns.map((c) => q(c.name)).join(", ");
        if (!stage) {
          stage = `stage_${staging.size}`;
          staging.set(def.name, stage);
          await client.query(
            `create temp table ${stage} (${def.columns.map((c) => `${q(c.name)} ${sqlType(c.type)}`).join(", ")}) on commit delete rows`,
          );
        }
        const lines = function* () {
          for (let i = 0; i < rows.length; i += 500) {
            yield `${rows
              .slice(i, i + 500)
              .map((r) => csvLine(r, def))
              .join("\n")}\n`;
          }
        };
        await pipeline(
          Readable.from(lines()),
          client.query(copyFrom(`copy ${stage} (${cols}) from stdin with (format csv)`)),
        );
        await client.query(
          `insert into ${q(def.name)} (${cols}) select ${cols} from ${stage} on conflict (${def.key.map(q).join(", ")}) do update set ${updateSet(def)}`,
        );
      }
      await client.query("commit");
    },
    close: () => client.end(),
  };
}
