import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { dropReaderRole } from "../../connectors/warehouse/postgres/reader.js";
import { afterTest } from "./after-test.js";

/** The real Postgres server of the machine (CI sets it); without it Postgres tests are skipped, visibly. */
export const PG_URL = process.env["SKILLSYNC_TEST_POSTGRES_URL"];

let warned = false;
function warnOnce(): void {
  if (!PG_URL && !warned) {
    warned = true;
    console.warn("SKILLSYNC_TEST_POSTGRES_URL is not set: the Postgres variants of these tests are SKIPPED");
  }
}

export type WarehouseKind = "sqlite" | "postgres";
export const WAREHOUSE_KINDS: WarehouseKind[] = ["sqlite", "postgres"];

/** Whether this kind can run here (for `describe.skipIf`). */
export function unavailable(kind: WarehouseKind): boolean {
  warnOnce();
  return kind === "postgres" && !PG_URL;
}

/**
 * A fresh, empty warehouse URL for one test: a SQLite file in a temp folder, or a Postgres schema
 * of its own. Dropped after the test — kept when the test failed, so it can be inspected.
 */
const KEEP = { keepOnFailure: true };

export function freshWarehouseUrl(kind: WarehouseKind): string {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "skillsync-test-"));
    afterTest(() => rmSync(dir, { recursive: true, force: true }), KEEP);
    return join(dir, "warehouse.db");
  }
  const schema = `t_${randomBytes(6).toString("hex")}`;
  afterTest(async () => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      // The queue of workers' tests lives beside it (connectors/queue/work-queue.ts).
      await c.query(`drop schema if exists "${schema}" cascade`);
      await c.query(`drop schema if exists "${schema}_pgboss" cascade`);
      await dropReaderRole(c, schema);
    } finally {
      await c.end();
    }
  }, KEEP);
  const sep = PG_URL!.includes("?") ? "&" : "?";
  return `${PG_URL}${sep}schema=${schema}`;
}

/**
 * A Postgres database of its own, dropped after the test (sessions ended with it): for what a
 * schema cannot isolate — a database without any warehouse, ending every session of one.
 */
export async function throwawayDatabase(prefix: string): Promise<{ url: string; name: string }> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  afterTest(async () => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`drop database if exists "${name}" with (force)`);
    await c.end();
  });
  const u = new URL(PG_URL!);
  u.pathname = `/${name}`;
  return { url: u.toString(), name };
}
