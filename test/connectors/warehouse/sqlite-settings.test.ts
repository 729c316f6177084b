import { spawn } from "node:child_process";
import SQLite from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openWarehouse, setWarehousePragmas } from "../../../connectors/warehouse/open.js";
import { freshWarehouseUrl } from "../../helpers/warehouses.js";

const settings = (database: SQLite.Database) => ({
  journal: database.pragma("journal_mode", { simple: true }),
  synchronous: database.pragma("synchronous", { simple: true }),
  checkpointEvery: database.pragma("wal_autocheckpoint", { simple: true }),
  foreignKeys: database.pragma("foreign_keys", { simple: true }),
  busyTimeout: database.pragma("busy_timeout", { simple: true }),
});

// The pragmas safe for a warehouse file: a crash loses at most the last commits, never the file.
const WAREHOUSE = {
  journal: "wal",
  synchronous: 1,
  checkpointEvery: 10000,
  foreignKeys: 1,
  busyTimeout: 15000,
};

describe("SQLite warehouse settings", () => {
  it("a warehouse file runs in WAL mode with synchronous=NORMAL, checkpoints every 10,000 pages, foreign keys on", async () => {
    const w = await openWarehouse(freshWarehouseUrl("sqlite"));
    try {
      if (w.raw.kind !== "sqlite") throw new Error("expected SQLite");
      expect(settings(w.raw.database)).toEqual(WAREHOUSE);
    } finally {
      await w.close();
    }
  });

  it("another connection to the file (the bench's raw reference) gets the same settings from setWarehousePragmas", async () => {
    const path = freshWarehouseUrl("sqlite");
    const plain = new SQLite(path);
    try {
      // SQLite's own defaults differ: the reference checkpointed ten times as often.
      expect(settings(plain)).not.toEqual(WAREHOUSE);
      setWarehousePragmas(plain);
      expect(settings(plain)).toEqual(WAREHOUSE);
    } finally {
      plain.close();
    }
  });

  it("opening a new file another process is writing waits for its commit, then switches to WAL", async () => {
    const file = freshWarehouseUrl("sqlite");
    // Another process creating tables in the file (still in the default rollback journal).
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const D = require(${JSON.stringify(require.resolve("better-sqlite3"))});
         const db = new D(${JSON.stringify(file)});
         db.exec("begin immediate; create table t (x)");
         process.stdout.write("writing\\n");
         setTimeout(() => { db.exec("commit"); db.close(); }, 800);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
    const started = Date.now();
    const w = await openWarehouse(file);
    try {
      if (w.raw.kind !== "sqlite") throw new Error("expected SQLite");
      expect(Date.now() - started).toBeGreaterThan(300);
      expect(settings(w.raw.database).journal).toBe("wal");
    } finally {
      await w.close();
    }
  });
});
