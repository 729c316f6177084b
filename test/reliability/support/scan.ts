import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import SQLite from "better-sqlite3";
import pg from "pg";
import { dropReaderRole } from "../../../connectors/warehouse/postgres/reader.js";
import { SECRETS } from "./secrets.js";

/** One secret found somewhere it must not be. */
export interface Leak {
  secret: string;
  where: string;
}

export interface ScanCounts {
  files: number;
  tables: number;
  cells: number;
  storedResponses: number;
  leaks: Leak[];
}

export const emptyCounts = (): ScanCounts => ({
  files: 0,
  tables: 0,
  cells: 0,
  storedResponses: 0,
  leaks: [],
});

export function scanText(text: string, where: string, into: Leak[]): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    if (text.includes(value)) into.push({ secret: name, where });
  }
}

/** Bytes as text, and, when they are gzip (stored responses), their content too. */
function scanBytes(bytes: Buffer, where: string, c: ScanCounts): void {
  scanText(bytes.toString("latin1"), where, c.leaks);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    c.storedResponses++;
    try {
      scanText(gunzipSync(bytes).toString("utf8"), `${where} (gunzipped)`, c.leaks);
    } catch {
      scanText("", where, c.leaks);
    }
  }
}

function scanValue(v: unknown, where: string, c: ScanCounts): void {
  if (v === null || v === undefined) return;
  c.cells++;
  if (Buffer.isBuffer(v)) scanBytes(v, where, c);
  else if (v instanceof Uint8Array) scanBytes(Buffer.from(v), where, c);
  else if (typeof v === "string") scanText(v, where, c.leaks);
  else if (typeof v === "object") scanText(JSON.stringify(v), where, c.leaks);
}

/** Every cell of every table of a SQLite file (blobs gunzipped when they are gzip). */
function scanSqlite(file: string, c: ScanCounts): void {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as {
      name: string;
    }[];
    for (const { name } of tables) {
      c.tables++;
      for (const row of db.prepare(`select * from "${name.replaceAll('"', '""')}"`).iterate()) {
        for (const [col, v] of Object.entries(row as Record<string, unknown>))
          scanValue(v, `${file} ${name}.${col}`, c);
      }
    }
  } finally {
    db.close();
  }
}

/** Every file under a folder, as bytes; SQLite files also table by table. */
export function scanFolder(dir: string, c: ScanCounts): void {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      scanFolder(path, c);
      continue;
    }
    c.files++;
    scanBytes(readFileSync(path), path, c);
    if (path.endsWith(".db")) {
      try {
        scanSqlite(path, c);
      } catch (err) {
        // A file a SIGKILL left half-written is still scanned as bytes above.
        scanText(String(err), path, c.leaks);
      }
    }
  }
}

/** Every text, JSON and bytea cell of every table in the schemas that start with `prefix`. */
export async function scanPostgres(url: string, prefix: string, c: ScanCounts): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const schemas = (
      await client.query<{ nspname: string }>(
        "select nspname from pg_namespace where starts_with(nspname, $1) order by 1",
        [prefix],
      )
    ).rows.map((r) => r.nspname);
    for (const schema of schemas) {
      const tables = await client.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE'",
        [schema],
      );
      for (const { table_name } of tables.rows) {
        c.tables++;
        const rows = await client.query(`select * from "${schema}"."${table_name}"`);
        for (const row of rows.rows)
          for (const [col, v] of Object.entries(row)) scanValue(v, `${schema}.${table_name}.${col}`, c);
      }
    }
    return schemas;
  } finally {
    await client.end();
  }
}

export async function dropSchemas(url: string, schemas: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const s of schemas) {
      await client.query(`drop schema if exists "${s}" cascade`);
      await dropReaderRole(client, s);
    }
  } finally {
    await client.end();
  }
}
