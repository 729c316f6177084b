import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { readOnly } from "../../../connectors/warehouse/read-only.js";
import { listTables } from "../../../connectors/warehouse/tables.js";
import { ConfigurationError } from "../../../core/errors.js";
import { freshWarehouseUrl, PG_URL, unavailable } from "../../helpers/warehouses.js";

const hash = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** A SQLite warehouse as runs leave it: WAL mode, a table with a row, closed (no -wal or -shm left). */
async function sqliteWarehouse(): Promise<string> {
  const path = freshWarehouseUrl("sqlite");
  const w = await openWarehouse(path);
  await sql`create table seen (asin text)`.execute(w.db);
  await sql`insert into seen values ('B01')`.execute(w.db);
  await w.close();
  return path;
}

describe("a SQLite warehouse opened read-only", () => {
  it("leaves the file byte for byte as it was and nothing beside it, reads through the reader process included", async () => {
    const path = await sqliteWarehouse();
    const before = { hash: hash(path), files: readdirSync(dirname(path)) };
    expect(before.files).toEqual(["warehouse.db"]);
    const w = await openWarehouse(path, { readOnly: true });
    try {
      expect(await listTables(w)).toEqual(["seen"]);
      expect(await w.db.selectFrom("seen").selectAll().execute()).toEqual([{ asin: "B01" }]);
      expect(await readOnly(w, "select asin from seen")).toEqual([{ asin: "B01" }]);
      await expect(sql`insert into seen values ('B02')`.execute(w.db)).rejects.toThrow(/readonly/i);
      await expect(sql`create table other (x)`.execute(w.db)).rejects.toThrow(/readonly/i);
    } finally {
      await w.close();
    }
    expect(hash(path)).toBe(before.hash);
    expect(readdirSync(dirname(path))).toEqual(before.files);
  });

  it("leaves another connection's WAL to it (the file and its -wal unchanged)", async () => {
    const path = await sqliteWarehouse();
    const other = new SQLite(path);
    try {
      other.pragma("wal_autocheckpoint = 0");
      other.prepare("insert into seen values ('B02')").run();
      const before = { hash: hash(path), wal: hash(`${path}-wal`) };
      const w = await openWarehouse(path, { readOnly: true });
      try {
        expect(await w.db.selectFrom("seen").select("asin").orderBy("asin").execute()).toEqual([
          { asin: "B01" },
          { asin: "B02" },
        ]);
      } finally {
        await w.close();
      }
      expect({ hash: hash(path), wal: hash(`${path}-wal`) }).toEqual(before);
    } finally {
      other.close();
    }
  });

  it("a file that is not there is neither created nor its folder: it reads as an empty warehouse", async () => {
    const path = join(dirname(freshWarehouseUrl("sqlite")), "not", "there.db");
    const w = await openWarehouse(path, { readOnly: true });
    try {
      expect(await listTables(w)).toEqual([]);
      await expect(sql`create table other (x)`.execute(w.db)).rejects.toThrow(/readonly/i);
      // Reads run on the stand-in's own connection: no other process could open it.
      expect(await readOnly(w, "select 'x' as v")).toEqual([{ v: "x" }]);
    } finally {
      await w.close();
    }
    expect(existsSync(dirname(path))).toBe(false);
  });

  it("a file that is not a database is a configuration error naming it", async () => {
    const path = join(dirname(freshWarehouseUrl("sqlite")), "kw.csv");
    writeFileSync(path, "keyword\nusb hub\n".repeat(100));
    const before = hash(path);
    const err = await openWarehouse(path, { readOnly: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toContain(`${path} is not a SQLite database`);
    expect(hash(path)).toBe(before);
  });
});

describe.skipIf(unavailable("postgres"))("a Postgres warehouse opened read-only", () => {
  const schemaOf = (url: string) => new URL(url).searchParams.get("schema")!;
  const schemaExists = async (schema: string) => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      return (await c.query("select 1 from information_schema.schemata where schema_name = $1", [schema]))
        .rowCount;
    } finally {
      await c.end();
    }
  };

  it("a schema that is not there is not created: it reads as an empty warehouse", async () => {
    const url = freshWarehouseUrl("postgres");
    const w = await openWarehouse(url, { readOnly: true });
    try {
      expect(await listTables(w)).toEqual([]);
      await expect(sql`create table other (x int)`.execute(w.db)).rejects.toThrow();
    } finally {
      await w.close();
    }
    expect(await schemaExists(schemaOf(url))).toBe(0);
  });

  it("every session refuses writes", async () => {
    const url = freshWarehouseUrl("postgres");
    const seed = await openWarehouse(url);
    await sql`create table seen (asin text)`.execute(seed.db);
    await sql`insert into seen values ('B01')`.execute(seed.db);
    await seed.close();
    const w = await openWarehouse(url, { readOnly: true });
    try {
      expect(await w.db.selectFrom("seen").selectAll().execute()).toEqual([{ asin: "B01" }]);
      await expect(sql`insert into seen values ('B02')`.execute(w.db)).rejects.toThrow(
        /read-only transaction/,
      );
      await expect(sql`create table other (x int)`.execute(w.db)).rejects.toThrow(/read-only transaction/);
    } finally {
      await w.close();
    }
  });
});
