import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { closeReadOnly, ReadTimeoutError, readOnly } from "../../connectors/warehouse/read-only.js";
import { SkillsyncError } from "../../core/errors.js";
import { resolveInput } from "../../engine/define/inputs.js";
import type { LoadedPipeline } from "../../engine/define/pipeline-file.js";
import { readOnlyQuery } from "../../engine/publish/query.js";
import { countRows, readRows } from "../../engine/publish/read-table.js";
import { migrateToLatest } from "../../store/migrate.js";
import { HOSTILE_STATEMENTS, HOSTILE_VIEWS } from "./corpus/read-only.js";
import { addFigures, filesDir, keepOutput } from "./support/suite.js";
import { KINDS, type Kind, PG_URL, suiteWarehouse, unavailable } from "./support/warehouses.js";

// Issue 20: every hostile statement, through every read path, on both databases. Nothing may be
// written, no file created, no program run; each statement is refused or ends within its limit.
const LIMIT_MS = 1_000;
/** Postgres's client waits a second past statement_timeout before cancelling itself. */
const SLACK_MS = 2_000;
process.env["SKILLSYNC_SQL_TIMEOUT_MS"] = String(LIMIT_MS);

type Path = (w: Warehouse, text: string) => Promise<unknown>;

const PATHS: Record<string, Path> = {
  "skillsync sql": (w, text) => readOnlyQuery(w, text),
  "pipeline input sql:": (w, text) =>
    resolveInput(
      {
        file: "/nowhere/hostile.yaml",
        freshness: "1d",
        params: {},
        input: { name: "value", from: { sql: text } },
      } as unknown as LoadedPipeline,
      { warehouse: w, params: {} },
    ),
  "agent / sheets --sql (readOnly)": (w, text) => readOnly(w, text, { source: "--sql" }),
};

async function pgState(w: Warehouse): Promise<string[]> {
  const schema = w.adapter.schema!;
  const rels = (
    await sql<{ name: string; kind: string }>`
      select c.relname as name, c.relkind as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} order by 1`.execute(w.db)
  ).rows;
  const out = rels.map((r) => `rel ${r.name} ${r.kind}`);
  for (const r of rels.filter((x) => x.kind === "r")) {
    const rows = (await sql.raw<{ t: string }>(`select t::text as t from "${r.name}" t`).execute(w.db)).rows;
    out.push(...rows.map((x) => `${r.name}: ${x.t}`).sort());
  }
  const lo = await sql<{ n: number }>`select count(*)::int as n from pg_largeobject_metadata`.execute(w.db);
  out.push(`large objects ${lo.rows[0]?.n}`);
  return out;
}

/**
 * The warehouse file's bytes, and the files beside it. A reader ended mid-statement (at its time
 * limit) leaves its connection open in this process until it exits, so the last close does not
 * remove the WAL files: they may remain, but the WAL must be empty (nothing was ever written).
 */
function sqliteState(file: string): string[] {
  const dir = dirname(file);
  const base = basename(file);
  const wal = `${file}-wal`;
  if (existsSync(wal)) expect(statSync(wal).size).toBe(0);
  return [
    createHash("sha256").update(readFileSync(file)).digest("hex"),
    ...readdirSync(dir).filter((f) => f.startsWith(base) && !/-(wal|shm)$/.test(f)),
  ];
}

async function seed(url: string, kind: Kind): Promise<void> {
  const w = await openWarehouse(url);
  try {
    await migrateToLatest(w);
    await sql`insert into skillsync_budgets (scope, reserved, updated_at) values ('daily', 95, ${new Date().toISOString()})`.execute(
      w.db,
    );
    await sql`create table user_rows (x integer)`.execute(w.db);
    for (let i = 0; i < 383; i++) await sql`insert into user_rows (x) values (${i})`.execute(w.db);
    for (const [name, body] of Object.entries(HOSTILE_VIEWS[kind])) {
      await sql.raw(`create view ${name} as ${body}`).execute(w.db);
    }
  } finally {
    await w.close();
  }
}

describe.each(KINDS)("the one read-only path on %s", (kind) => {
  const figures = { statements: 0, runs: 0, refused: 0, finished: 0, timed_out: 0, slowest_ms: 0 };
  afterAll(() => {
    addFigures("read_only", {
      [`${kind}_statements_max`]: figures.statements,
      [`${kind}_runs`]: figures.runs,
      [`${kind}_refused`]: figures.refused,
      [`${kind}_timed_out`]: figures.timed_out,
      [`${kind}_finished`]: figures.finished,
      [`${kind}_slowest_ms_max`]: figures.slowest_ms,
    });
  });

  it.skipIf(unavailable(kind))(
    `${HOSTILE_STATEMENTS.length} hostile statements through every path: nothing written, no file, all within the limit`,
    async () => {
      expect(HOSTILE_STATEMENTS.length).toBeGreaterThanOrEqual(60);
      const url = suiteWarehouse(kind, "read_only");
      await seed(url, kind);
      const dir = filesDir("read-only");
      chmodSync(dir, 0o777); // so a Postgres server running as another OS user could write (it must not)
      const before = kind === "sqlite" ? sqliteState(url) : undefined;
      const w = await openWarehouse(url);
      const pgBefore = kind === "postgres" ? await pgState(w) : undefined;
      const unexpected: string[] = [];
      try {
        figures.statements = HOSTILE_STATEMENTS.length;
        for (const raw of HOSTILE_STATEMENTS) {
          const text = raw.replaceAll("{dir}", dir);
          for (const [path, run] of Object.entries(PATHS)) {
            figures.runs++;
            const t0 = performance.now();
            let outcome: string;
            try {
              await run(w, text);
              outcome = "finished";
              figures.finished++;
            } catch (err) {
              if (err instanceof ReadTimeoutError) {
                outcome = "timed out";
                figures.timed_out++;
              } else if (err instanceof SkillsyncError && err.exitCode === 2) {
                outcome = `refused: ${err.message.split("\n").slice(1).join(" ").trim()}`;
                figures.refused++;
              } else {
                outcome = `unexpected ${String(err)}`;
                unexpected.push(`${path} ${JSON.stringify(raw)}: ${String(err)}`);
              }
            }
            const ms = Math.round(performance.now() - t0);
            figures.slowest_ms = Math.max(figures.slowest_ms, ms);
            keepOutput("read-only", `${kind} ${path} ${JSON.stringify(raw)} → ${outcome} (${ms} ms)`);
            if (ms > LIMIT_MS + SLACK_MS) unexpected.push(`${path} ${JSON.stringify(raw)} took ${ms} ms`);
          }
        }
        // The server's table views read the user's own views through the same path.
        for (const view of Object.keys(HOSTILE_VIEWS[kind])) {
          for (const read of [
            () => readRows(w, view, { columns: ["n"], limit: 10 }),
            () => countRows(w, view),
          ]) {
            const t0 = performance.now();
            await expect(read()).rejects.toBeInstanceOf(ReadTimeoutError);
            const ms = Math.round(performance.now() - t0);
            figures.runs++;
            figures.timed_out++;
            figures.slowest_ms = Math.max(figures.slowest_ms, ms);
            expect(ms).toBeLessThan(LIMIT_MS + SLACK_MS);
          }
        }
        // Valid reads still answer, in the same shapes.
        expect((await readOnlyQuery(w, "select count(*) as n from user_rows")).rows).toEqual([{ n: 383 }]);
        expect(await readRows(w, "user_rows", { columns: ["x"], orderBy: ["x"], limit: 2 })).toEqual([
          { x: 0 },
          { x: 1 },
        ]);
        if (kind === "postgres") {
          expect(await pgState(w)).toEqual(pgBefore);
          const c = new pg.Client({ connectionString: PG_URL });
          await c.connect();
          try {
            const r = await c.query(
              "select count(*)::int as n from pg_stat_activity where query like '%pg_sleep(3600)%' and state = 'active' and pid <> pg_backend_pid()",
            );
            expect(r.rows[0].n).toBe(0);
          } finally {
            await c.end();
          }
        }
      } finally {
        await closeReadOnly();
        await w.close();
      }
      expect(unexpected).toEqual([]);
      expect(readdirSync(dir)).toEqual([]);
      expect(existsSync("evil")).toBe(false);
      if (kind === "sqlite") expect(sqliteState(url)).toEqual(before);
    },
  );
});

describe.skipIf(unavailable("postgres"))("a killed client on Postgres", () => {
  it("its statement stops on the server within seconds, not at the end of a pg_sleep(3600)", async () => {
    const url = suiteWarehouse("postgres", "read_only_kill");
    await seed(url, "postgres");
    const tag = `kill_${Date.now()}`;
    const entry = fileURLToPath(new URL("../../cli/run.ts", import.meta.url));
    const child = spawn(
      process.execPath,
      ["--import", "tsx", entry, "sql", `select pg_sleep(3600) as ${tag}`, "--db", url],
      {
        stdio: "ignore",
        env: { ...process.env, SKILLSYNC_SQL_TIMEOUT_MS: "600000" },
      },
    );
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    const active = async () =>
      (
        await c.query(
          "select count(*)::int as n from pg_stat_activity where query like $1 and state = 'active' and pid <> pg_backend_pid()",
          [`%${tag}%`],
        )
      ).rows[0].n as number;
    try {
      const until = Date.now() + 20_000;
      while ((await active()) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(await active()).toBe(1);
      child.kill("SIGKILL");
      const killedAt = Date.now();
      while ((await active()) > 0 && Date.now() - killedAt < 10_000)
        await new Promise((r) => setTimeout(r, 100));
      const gone = Date.now() - killedAt;
      addFigures("read_only", { killed_client_backend_gone_ms_max: gone });
      expect(await active()).toBe(0);
      expect(gone).toBeLessThan(5_000);
    } finally {
      child.kill("SIGKILL");
      await c.end();
    }
  });
});

describe("a killed client on SQLite", () => {
  it("a statement stopped at its limit does not keep `skillsync sql` (or a CPU) busy", async () => {
    const url = suiteWarehouse("sqlite", "read_only_exit");
    await seed(url, "sqlite");
    const entry = fileURLToPath(new URL("../../cli/run.ts", import.meta.url));
    const endless = "with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r";
    const started = Date.now();
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", entry, "sql", endless, "--timeout", "0.5", "--db", url],
      {
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/stopped after 500 ms/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("its reader process (busy in an endless CTE) ends within seconds", async () => {
    const url = suiteWarehouse("sqlite", "read_only_kill");
    await seed(url, "sqlite");
    const entry = fileURLToPath(new URL("../../cli/run.ts", import.meta.url));
    const endless = "with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r";
    const child = spawn(process.execPath, ["--import", "tsx", entry, "sql", endless, "--db", url], {
      stdio: "ignore",
      env: { ...process.env, SKILLSYNC_SQL_TIMEOUT_MS: "600000" },
    });
    const readers = () => {
      const r = spawnSync("ps", ["-o", "pid=", "--ppid", String(child.pid)], { encoding: "utf8" });
      return r.stdout
        .split("\n")
        .map((l) => Number(l.trim()))
        .filter((n) => n > 0);
    };
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      let pids: number[] = [];
      for (let i = 0; i < 300 && pids.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        pids = readers();
      }
      expect(pids.length).toBe(1);
      await new Promise((r) => setTimeout(r, 500));
      child.kill("SIGKILL");
      const killedAt = Date.now();
      while (pids.some(alive) && Date.now() - killedAt < 10_000) await new Promise((r) => setTimeout(r, 100));
      const gone = Date.now() - killedAt;
      addFigures("read_only", { killed_client_sqlite_reader_gone_ms_max: gone });
      expect(pids.some(alive)).toBe(false);
      expect(gone).toBeLessThan(5_000);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
