import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { closeReadOnly, ReadTimeoutError, readOnly } from "../../connectors/warehouse/read-only.js";
import { SkillsyncError } from "../../core/errors.js";
import { resolveInput } from "../../engine/define/inputs.js";
import type { LoadedPipeline } from "../../engine/define/pipeline-file.js";
import { readWarehouse } from "../../engine/define/warehouse-reads.js";
import { readOnlyQuery } from "../../engine/publish/query.js";
import { countRows, readRows } from "../../engine/publish/read-table.js";
import { migrateToLatest } from "../../store/migrate.js";
import { startMcp } from "../mcp/helpers.js";
import {
  DBLINK_STATEMENTS,
  DBLINK_VIEW,
  DROP_PUBLIC_FUNCTIONS,
  type Fill,
  fill,
  HOSTILE_STATEMENTS,
  HOSTILE_VIEWS,
  SEED_FUNCTIONS,
  xml,
} from "./corpus/read-only.js";
import {
  type EffectScope,
  filesIn,
  fingerprint,
  logicalMessagesSince,
  openSentinels,
  serverState,
  stateDifferences,
  superuserClient,
  walPosition,
} from "./support/pg-effects.js";
import {
  type CliCommand,
  fromError,
  inputPipeline,
  mcpInProcess,
  type Outcome,
  serverInProcess,
  throughCli,
} from "./support/read-paths.js";
import { API_KEY } from "./support/secrets.js";
import { addFigures, filesDir, keepOutput, SUITE_TAG } from "./support/suite.js";
import { type Kind, PG_URL, suiteWarehouse, unavailable } from "./support/warehouses.js";

// Issue 20: every hostile statement, through every read path, on both databases. Nothing may be
// written, no file created, no program run; each statement is refused or ends within its limit.
// Issue 29 item 1 ("Privilege, not a list"): on Postgres the paths run connected as a SUPERUSER,
// and statements that run SQL given as text (query_to_xml, cursors, functions someone else made)
// pass the first check; only the reader role the read paths log in as stands in their way. They
// may finish now, if they had no effect: every effect is looked for from a separate session.
const LIMIT_MS = 1_000;
/** Postgres's client waits a second past statement_timeout before cancelling itself. */
const SLACK_MS = 2_000;
process.env["SKILLSYNC_SQL_TIMEOUT_MS"] = String(LIMIT_MS);

/**
 * A file of random content the database server's OS user can read (a superuser's pg_read_file
 * returns it: checked), and a folder it could write into; both outside the suite's own folder,
 * whose parents only this user may enter.
 */
function serverReachable(): { root: string; marker: string; content: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), "skillsync-read-only-"));
  chmodSync(root, 0o755);
  const content = `skillsync-marker-${randomBytes(16).toString("hex")}`;
  const marker = join(root, "marker.txt");
  writeFileSync(marker, `${content}\n`);
  chmodSync(marker, 0o644);
  const dir = join(root, "writable");
  mkdirSync(dir);
  chmodSync(dir, 0o777);
  return { root, marker, content, dir };
}

/** What must never appear in anything a path printed or answered, by name. */
type Secrets = Record<string, string>;
const leaksIn = (text: string, secrets: Secrets) =>
  Object.entries(secrets)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name);

type Path = (w: Warehouse, text: string) => Promise<unknown>;

const SQLITE_PATHS: Record<string, Path> = {
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

/**
 * The warehouse's relations and every table's rows. With `runsBefore`, the bookkeeping a refused
 * `skillsync run` does by design is set apart: its own run row (returned in `newRuns`) and its
 * budget rows; rows that were there before must stay as they were (budget rows but their clock).
 */
async function pgState(
  w: Warehouse,
  runsBefore?: Set<string>,
): Promise<{ lines: string[]; newRuns: Record<string, unknown>[] }> {
  const schema = w.adapter.schema!;
  const rels = (
    await sql<{ name: string; kind: string }>`
      select c.relname as name, c.relkind as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} order by 1`.execute(w.db)
  ).rows;
  const lines = rels.map((r) => `rel ${r.name} ${r.kind}`);
  const newRuns: Record<string, unknown>[] = [];
  for (const r of rels.filter((x) => x.kind === "r")) {
    const rows = (
      await sql
        .raw<{ j: Record<string, unknown> }>(`select to_jsonb(t) as j from "${r.name}" t`)
        .execute(w.db)
    ).rows;
    const kept: string[] = [];
    for (const { j } of rows) {
      if (runsBefore && r.name === "skillsync_runs" && !runsBefore.has(String(j["id"]))) {
        newRuns.push(j);
        continue;
      }
      // A run's part of a pipeline is a load (skillsync_loads) even when it loads nothing: its
      // own row, as its run row is, which must have written nothing.
      if (runsBefore && r.name === "skillsync_loads" && !runsBefore.has(String(j["run_id"]))) {
        const wrote = ["rows_inserted", "versions_new", "unchanged", "closed"].some(
          (k) => Number(j[k]) !== 0,
        );
        if (!wrote) continue;
      }
      // The server records each signed request's signature before it acts, so that it cannot be
      // replayed (docs/server.md): that a request was seen, not an effect of its statement.
      if (runsBefore && r.name === "skillsync_request_signatures") continue;
      if (runsBefore && r.name === "skillsync_budgets") {
        const scope = String(j["scope"]);
        if (scope.startsWith("invocation:") && !runsBefore.has(scope.split(":")[1]!)) continue;
        delete j["updated_at"];
      }
      kept.push(`${r.name}: ${JSON.stringify(j)}`);
    }
    lines.push(...kept.sort());
  }
  const lo = await sql<{ n: number }>`select count(*)::int as n from pg_largeobject_metadata`.execute(w.db);
  lines.push(`large objects ${lo.rows[0]?.n}`);
  return { lines, newRuns };
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

/** A migrated warehouse with 383 user rows and a spent budget (and on SQLite, its hostile view). */
async function seed(url: string, kind: Kind): Promise<void> {
  const w = await openWarehouse(url);
  try {
    await migrateToLatest(w);
    await sql`insert into skillsync_budgets (scope, reserved, updated_at) values ('daily', 95, ${new Date().toISOString()})`.execute(
      w.db,
    );
    await sql`create table user_rows (x integer)`.execute(w.db);
    for (let i = 0; i < 383; i++) await sql`insert into user_rows (x) values (${i})`.execute(w.db);
    if (kind === "sqlite") {
      for (const [name, body] of Object.entries(HOSTILE_VIEWS.sqlite)) {
        await sql.raw(`create view ${name} as ${body}`).execute(w.db);
      }
    }
  } finally {
    await w.close();
  }
}

/**
 * What the Postgres corpus needs besides `seed`, made as the superuser: tables with a serial and an
 * identity column, functions "someone else" made (SEED_FUNCTIONS, in the schema and in `public`)
 * and the hostile views (the dblink one when the reader can reach the extension).
 */
async function seedPostgres(url: string, f: Fill, dblink: boolean): Promise<void> {
  const w = await openWarehouse(url);
  try {
    await sql`create table serial_rows (id bigserial primary key, note text)`.execute(w.db);
    await sql`insert into serial_rows (note) values ('a'), ('b'), ('c')`.execute(w.db);
    await sql`create table identity_rows (id integer generated always as identity primary key, note text)`.execute(
      w.db,
    );
    await sql`insert into identity_rows (note) values ('a'), ('b')`.execute(w.db);
    for (const text of SEED_FUNCTIONS) await sql.raw(fill(text, f)).execute(w.db);
    for (const [name, body] of Object.entries({
      ...HOSTILE_VIEWS.postgres,
      ...(dblink ? DBLINK_VIEW : {}),
    })) {
      await sql.raw(`create view ${name} as ${fill(body, f)}`).execute(w.db);
    }
  } finally {
    await w.close();
  }
}

/**
 * The dblink and pg_walinspect extensions, where the server has them: made in the warehouse's
 * schema (one per database, so dropped again at the end) unless the database has them already.
 * dblink elsewhere is out of the reader's reach (no USAGE on that schema): its statements are left
 * out. Returns whether dblink is in the schema, and where pg_walinspect is.
 */
async function extensions(
  admin: pg.Client,
  schema: string,
  cleanups: (() => Promise<unknown>)[],
): Promise<{ dblink: boolean; walinspect: string | undefined; note: string }> {
  const available = (
    await admin.query<{ name: string; schema: string | null }>(
      `select a.name, n.nspname as schema from pg_available_extensions a
        left join pg_extension e on e.extname = a.name left join pg_namespace n on n.oid = e.extnamespace
        where a.name in ('dblink', 'pg_walinspect')`,
    )
  ).rows;
  const where: Record<string, string | undefined> = {};
  for (const { name, schema: there } of available) {
    if (there) {
      where[name] = there;
      continue;
    }
    await admin.query(`create extension ${name} schema "${schema}"`);
    cleanups.push(() => admin.query(`drop extension if exists ${name} cascade`));
    where[name] = schema;
  }
  const note =
    available.map((e) => `${e.name} in ${where[e.name]}`).join(", ") || "neither dblink nor pg_walinspect";
  return { dblink: where["dblink"] === schema, walinspect: where["pg_walinspect"], note };
}

describe("the one read-only path on sqlite", () => {
  const figures = { statements: 0, runs: 0, refused: 0, finished: 0, timed_out: 0, slowest_ms: 0 };
  afterAll(() => {
    addFigures("read_only", {
      sqlite_statements_max: figures.statements,
      sqlite_runs: figures.runs,
      sqlite_refused: figures.refused,
      sqlite_timed_out: figures.timed_out,
      sqlite_finished: figures.finished,
      sqlite_slowest_ms_max: figures.slowest_ms,
    });
  });

  it(`${HOSTILE_STATEMENTS.length} hostile statements through every path: nothing written, no file, all within the limit`, async () => {
    expect(HOSTILE_STATEMENTS.length).toBeGreaterThanOrEqual(150);
    const url = suiteWarehouse("sqlite", "read_only");
    await seed(url, "sqlite");
    const place = serverReachable();
    const f: Fill = {
      dir: place.dir,
      marker: place.marker,
      sentinels: "0",
      http: "127.0.0.1:9",
      pub: "public.none",
      schema: "main",
      conninfo: "",
    };
    const before = sqliteState(url);
    const w = await openWarehouse(url);
    const unexpected: string[] = [];
    const leaks: string[] = [];
    try {
      figures.statements = HOSTILE_STATEMENTS.length;
      for (const raw of HOSTILE_STATEMENTS) {
        const text = fill(raw, f);
        for (const [path, run] of Object.entries(SQLITE_PATHS)) {
          figures.runs++;
          const t0 = performance.now();
          let outcome: string;
          let said = "";
          try {
            said = JSON.stringify(await run(w, text)) ?? "";
            outcome = "finished";
            figures.finished++;
          } catch (err) {
            said = String(err);
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
          keepOutput("read-only", `sqlite ${path} ${JSON.stringify(raw)} → ${outcome} (${ms} ms)`);
          if (ms > LIMIT_MS + SLACK_MS) unexpected.push(`${path} ${JSON.stringify(raw)} took ${ms} ms`);
          if (said.includes(place.content)) leaks.push(`${path} ${JSON.stringify(raw)}: the marker`);
        }
      }
      // The server's table views read the user's own views through the same path.
      for (const view of Object.keys(HOSTILE_VIEWS.sqlite)) {
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
    } finally {
      await closeReadOnly();
      await w.close();
    }
    expect(unexpected).toEqual([]);
    expect(leaks).toEqual([]);
    expect(readdirSync(place.dir)).toEqual([]);
    rmSync(place.root, { recursive: true, force: true });
    expect(existsSync("evil")).toBe(false);
    expect(sqliteState(url)).toEqual(before);
  });
});

/** The statement paths on Postgres: `skillsync sql`, a pipeline's input under plan and run, sheets push --sql, MCP query. */
type StatementPath = "skillsync_sql" | "input_plan" | "input_run" | "sheets_sql" | "mcp_query";
/** The paths that read a user's view: the server's table pages, MCP describe_table and table resources, readRows/countRows. */
type ViewPath = "server_table" | "mcp_describe" | "mcp_resource" | "read_table";
const STATEMENT_PATHS: StatementPath[] = [
  "skillsync_sql",
  "input_plan",
  "input_run",
  "sheets_sql",
  "mcp_query",
];
const VIEW_PATHS: ViewPath[] = ["server_table", "mcp_describe", "mcp_resource", "read_table"];
/** Paths that read in this process, over the warehouse's own reader pool (whose sessions are checked after each read). */
const POOLED = new Set<string>([
  "sheets_sql",
  "mcp_query",
  "server_table",
  "mcp_describe",
  "mcp_resource",
  "read_table",
]);

/** What a pooled reader session holds after a read; a clean one holds nothing (session state must not outlive a read). */
const SESSION_PROBE = `select
  (select coalesce(string_agg(name, ',' order by name), '') from pg_prepared_statements) as prepared_statements,
  (select coalesce(string_agg(name, ',' order by name), '') from pg_cursors where name !~ '^C_[0-9]+$') as cursors,
  (select coalesce(string_agg(c, ',' order by c), '') from pg_listening_channels() c) as listening,
  (select count(*)::int from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()) as advisory_locks,
  current_setting('default_transaction_read_only') as default_transaction_read_only,
  current_setting('search_path') as search_path,
  current_setting('application_name') as application_name,
  current_user::text as current_user_name,
  session_user::text as session_user_name`;

describe.skipIf(unavailable("postgres"))(
  "the one read-only path on postgres, connected as a superuser",
  () => {
    type Tally = { runs: number; refused: number; timed_out: number; finished: number };
    const perPath: Record<string, Tally> = {};
    const figures = {
      statements: 0,
      views: 0,
      runs: 0,
      refused: 0,
      refused_check: 0,
      refused_privilege: 0,
      refused_read_only: 0,
      refused_other: 0,
      timed_out: 0,
      finished: 0,
      finished_no_effect: 0,
      unexpected: 0,
      slowest_ms: 0,
      lasting_effects: 0,
      leaks: 0,
      session_state: 0,
    };
    afterAll(() => {
      const out: Record<string, number> = {
        postgres_statements_max: figures.statements,
        postgres_views_max: figures.views,
        postgres_slowest_ms_max: figures.slowest_ms,
      };
      for (const [k, v] of Object.entries(figures)) {
        if (!["statements", "views", "slowest_ms"].includes(k)) out[`postgres_${k}`] = v;
      }
      for (const [path, t] of Object.entries(perPath)) {
        for (const [k, v] of Object.entries(t)) out[`postgres_path_${path}_${k}`] = v;
      }
      addFigures("read_only", out);
    });

    it(`${HOSTILE_STATEMENTS.length} hostile statements through skillsync sql, pipeline inputs (plan, run), sheets --sql and MCP; hostile views through the server and MCP: no lasting effect, nothing leaked`, async () => {
      expect(HOSTILE_STATEMENTS.length).toBeGreaterThanOrEqual(150);
      const admin = await superuserClient();
      // Everything made for the trial goes again at the end, whatever happened (last made, first gone).
      const cleanups: (() => Promise<unknown>)[] = [() => admin.end()];
      const unexpected: string[] = [];
      const effects: string[] = [];
      const leaks: string[] = [];
      const sessionState: string[] = [];
      try {
        // The point of this trial: the paths' own login is a superuser.
        expect(
          (await admin.query("select rolsuper from pg_roles where rolname = current_user")).rows[0].rolsuper,
        ).toBe(true);
        const url = suiteWarehouse("postgres", "read_only");
        const schema = new URL(url).searchParams.get("schema")!;
        await seed(url, "postgres");
        const place = serverReachable();
        cleanups.push(async () => rmSync(place.root, { recursive: true, force: true }));
        const hits: string[] = [];
        const listener = createServer((req, res) => {
          hits.push(`${req.method} ${req.url}`);
          res.end();
        });
        await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
        cleanups.push(async () => listener.close());
        const sentinels = await openSentinels(
          `skillsync_sentinel_${SUITE_TAG}_${randomBytes(3).toString("hex")}`,
        );
        cleanups.push(() => sentinels.close());
        const ext = await extensions(admin, schema, cleanups);
        const pgUrl = new URL(PG_URL!);
        const f: Fill = {
          dir: place.dir,
          marker: place.marker,
          sentinels: sentinels.pids.join(", "),
          http: `127.0.0.1:${(listener.address() as AddressInfo).port}`,
          pub: `public.skillsync_evil_${SUITE_TAG}_${randomBytes(3).toString("hex")}`,
          schema,
          conninfo: `host=${pgUrl.hostname} port=${pgUrl.port || 5432} dbname=${pgUrl.pathname.slice(1)} user=${decodeURIComponent(pgUrl.username)}`,
        };
        // The functions in `public` (and the views in the schema that call them).
        cleanups.push(() => admin.query(fill(DROP_PUBLIC_FUNCTIONS, f)));
        await seedPostgres(url, f, ext.dblink);
        const login = (
          await admin.query<{ role: string; password: string }>(
            `select role, password from "${schema}".skillsync_reader_login`,
          )
        ).rows[0]!;
        const scope: EffectScope = {
          tag: SUITE_TAG,
          schema,
          reader: login.role,
          sentinels: sentinels.pids,
          walinspect: ext.walinspect,
        };
        const secrets: Secrets = {
          "the marker file's content": place.content,
          "the reader role's password": login.password,
          "/etc/passwd": "root:x:0:0",
          "the data directory's listing": "PG_VERSION",
        };
        const statements = [...HOSTILE_STATEMENTS, ...(ext.dblink ? DBLINK_STATEMENTS : [])];
        const views = Object.keys({ ...HOSTILE_VIEWS.postgres, ...(ext.dblink ? DBLINK_VIEW : {}) });
        figures.statements = statements.length;
        figures.views = views.length;
        const version = (await admin.query("select version() as v")).rows[0].v as string;
        keepOutput(
          "read-only",
          `postgres: ${version}; ${statements.length} statements, ${views.length} views; ${ext.note}`,
        );

        const pipelines = filesDir("read-only-pipelines");
        const env = {
          DATABASE_URL: undefined,
          SKILLSYNC_READ_DATABASE_URL: undefined,
          SKILL_API_KEY: API_KEY,
          SKILL_API_BASE_URL: "http://127.0.0.1:9",
          SKILLSYNC_SQL_TIMEOUT_MS: String(LIMIT_MS),
        };
        const cliPath = (command: CliCommand) => (text: string) =>
          command === "sql"
            ? throughCli("sql", [text, "--db", url, "--json"], env)
            : throughCli(command, [inputPipeline(pipelines, text), "--db", url, "--max-credits", "0"], env);

        const w = await openWarehouse(url);
        cleanups.push(() => w.close());
        const server = await serverInProcess(w);
        cleanups.push(async () => {
          keepOutput("read-only", server.logs.join("\n"));
          await server.close();
        });
        const mcp = await mcpInProcess(w);
        cleanups.push(() => mcp.close());

        // A run that stops at --max-credits 0 makes the tables and bookkeeping a run makes once.
        const baseline = await throughCli(
          "run",
          [inputPipeline(pipelines, "select 'baseline'"), "--db", url, "--max-credits", "0"],
          env,
        );
        expect(baseline.result, baseline.text).toBe("finished");
        // The superuser could read the marker and write into the folder: the fence is the role, not the OS.
        expect((await admin.query("select pg_read_file($1) as t", [place.marker])).rows[0].t.trim()).toBe(
          place.content,
        );
        await admin.query(`copy (select 1) to '${place.dir}/superuser-could'`);
        expect(filesIn(place.dir)).toEqual(["superuser-could"]);
        rmSync(join(place.dir, "superuser-could"));

        const cleanSession = (await readWarehouse(w, SESSION_PROBE))[0]!;
        expect(cleanSession["session_user_name"]).toBe(login.role);
        const sessionsSeen = new Set<string>();
        const checkSession = async (what: string) => {
          const now = (await readWarehouse(w, SESSION_PROBE))[0]!;
          const changed = Object.keys(cleanSession).filter((k) => String(now[k]) !== String(cleanSession[k]));
          const key = changed.map((k) => `${k}=${String(now[k])}`).join(", ");
          if (changed.length && !sessionsSeen.has(key)) {
            sessionsSeen.add(key);
            sessionState.push(`${what}: the next read's session holds ${key}`);
          }
          return changed.length > 0;
        };

        const runsBefore = new Set(
          (await admin.query<{ id: string }>(`select id from "${schema}".skillsync_runs`)).rows.map(
            (r) => r.id,
          ),
        );
        const stateBefore = await (async () => {
          const c = await superuserClient();
          try {
            return await serverState(c, scope);
          } finally {
            await c.end();
          }
        })();
        const pgBefore = await pgState(w, runsBefore);
        let last = await fingerprint(admin, scope);
        let notified = 0;
        let heard = 0;

        /** Runs one statement or view through one path, then looks for what it left behind. */
        const attempt = async (path: string, what: string, run: () => Promise<Outcome>) => {
          const tally = perPath[path] ?? { runs: 0, refused: 0, timed_out: 0, finished: 0 };
          perPath[path] = tally;
          const lsn = await walPosition(admin);
          const t0 = performance.now();
          let outcome: Outcome;
          try {
            outcome = await run();
          } catch (err) {
            outcome = fromError(err);
          }
          const ms = Math.round(performance.now() - t0);
          figures.runs++;
          tally.runs++;
          figures.slowest_ms = Math.max(figures.slowest_ms, ms);
          if (outcome.result === "refused") {
            figures.refused++;
            tally.refused++;
            figures[`refused_${outcome.by === "read-only" ? "read_only" : (outcome.by ?? "other")}`]++;
          } else if (outcome.result === "timed out") {
            figures.timed_out++;
            tally.timed_out++;
          } else if (outcome.result === "finished") {
            figures.finished++;
            tally.finished++;
          } else {
            figures.unexpected++;
            unexpected.push(`${path} ${what}: ${outcome.text.slice(0, 600)}`);
          }
          if (ms > LIMIT_MS + SLACK_MS) unexpected.push(`${path} ${what} took ${ms} ms`);
          const firstLine = outcome.text.replace(/\s+/g, " ").slice(0, 200);
          keepOutput(
            "read-only",
            `postgres ${path} ${what} → ${outcome.result}${outcome.by ? ` (${outcome.by})` : ""} (${ms} ms): ${firstLine}`,
          );
          // What it left behind, seen from the separate session.
          const found: string[] = [];
          const now = await fingerprint(admin, scope);
          for (const k of Object.keys(now)) if (now[k] !== last[k]) found.push(`${k} ${last[k]} → ${now[k]}`);
          last = now;
          const messages = await logicalMessagesSince(admin, scope, lsn);
          if (messages) found.push(`${messages} non-transactional logical message(s) in the WAL`);
          const files = filesIn(place.dir);
          if (files.length) {
            found.push(`files ${files.join(", ")} in {dir}`);
            for (const file of files) rmSync(join(place.dir, file), { force: true });
          }
          if (hits.length > heard) found.push(`requests to the listener: ${hits.slice(heard).join(", ")}`);
          heard = hits.length;
          if (sentinels.notifications.length > notified)
            found.push(`notifications: ${sentinels.notifications.slice(notified).join(", ")}`);
          notified = sentinels.notifications.length;
          for (const e of found) effects.push(`${path} ${what}: ${e}`);
          const leaked = leaksIn(outcome.text, secrets);
          for (const name of leaked) leaks.push(`${path} ${what}: ${name}`);
          const stateful = POOLED.has(path) && (await checkSession(`${path} ${what}`));
          if (outcome.result === "finished" && !found.length && !leaked.length && !stateful)
            figures.finished_no_effect++;
        };

        const statementPaths: Record<StatementPath, (text: string) => Promise<Outcome>> = {
          skillsync_sql: cliPath("sql"),
          input_plan: cliPath("plan"),
          input_run: cliPath("run"),
          sheets_sql: (text) =>
            readWarehouse(w, text, { source: "--sql", exactIntegers: true }).then(
              (rows) => ({
                result: "finished",
                text: JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? String(v) : v)),
              }),
              (err) => fromError(err),
            ),
          mcp_query: (text) => mcp.query(text),
        };
        for (const raw of statements) {
          const text = fill(raw, f);
          for (const path of STATEMENT_PATHS)
            await attempt(path, JSON.stringify(raw), () => statementPaths[path](text));
        }

        const viewPaths: Record<ViewPath, (view: string) => Promise<Outcome>> = {
          server_table: (view) => server.page(view),
          mcp_describe: (view) => mcp.describeTable(view),
          mcp_resource: (view) => mcp.readResource(view),
          read_table: async (view) => {
            try {
              const rows = await readRows(w, view, { columns: ["n"], limit: 10 });
              const n = await countRows(w, view);
              return { result: "finished", text: `${JSON.stringify(rows)} ${n}` };
            } catch (err) {
              return fromError(err);
            }
          },
        };
        for (const view of views) {
          for (const path of VIEW_PATHS) await attempt(path, `view ${view}`, () => viewPaths[path](view));
        }

        // Valid reads still answer, in the same shapes.
        expect((await readOnlyQuery(w, "select count(*) as n from user_rows")).rows).toEqual([{ n: 383 }]);
        expect(await readRows(w, "user_rows", { columns: ["x"], orderBy: ["x"], limit: 2 })).toEqual([
          { x: 0 },
          { x: 1 },
        ]);

        // No statement of the reader still runs on the server (each ended at its limit, or before).
        const until = Date.now() + 15_000;
        const running = async () =>
          (
            await admin.query(
              "select count(*)::int as n from pg_stat_activity where usename = $1 and state = 'active' and pid <> pg_backend_pid()",
              [login.role],
            )
          ).rows[0].n as number;
        while ((await running()) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
        if (await running())
          effects.push(`the reader still runs ${await running()} statement(s) after the corpus`);

        // Everything once more, from a fresh session.
        const c = await superuserClient();
        try {
          for (const d of stateDifferences(stateBefore, await serverState(c, scope)))
            effects.push(`after the corpus: ${d}`);
        } finally {
          await c.end();
        }
        const pgAfter = await pgState(w, runsBefore);
        for (const d of pgAfter.lines.filter((l) => !pgBefore.lines.includes(l)))
          effects.push(`warehouse: now ${d}`);
        for (const d of pgBefore.lines.filter((l) => !pgAfter.lines.includes(l)))
          effects.push(`warehouse: gone ${d}`);
        // Each `skillsync run` left its own run row: refused, stopped at its ceiling or with nothing
        // to do (an input that answered no value); no call made, nothing spent.
        for (const run of pgAfter.newRuns) {
          const made = ["calls_done", "calls_cached", "calls_failed", "credits_spent"].map((k) =>
            Number(run[k] ?? 0),
          );
          if (
            !["failed", "ceiling", "succeeded"].includes(String(run["status"])) ||
            made.some((n) => n !== 0)
          )
            effects.push(`warehouse: a run row ${JSON.stringify(run).slice(0, 300)}`);
          for (const name of leaksIn(JSON.stringify(run), secrets))
            leaks.push(`run row ${String(run["id"])}: ${name}`);
        }
        const answers = await sentinels.answer();
        if (!answers.every(Boolean)) effects.push(`sentinels answering select 1: ${answers.join(", ")}`);
        if (sentinels.errors.length) effects.push(`sentinel errors: ${sentinels.errors.join("; ")}`);
        if (readFileSync(place.marker, "utf8") !== `${place.content}\n`)
          effects.push("the marker file changed");
        for (const name of leaksIn(server.logs.join("\n"), secrets)) leaks.push(`server log: ${name}`);
      } finally {
        for (const cleanup of cleanups.reverse())
          await cleanup().catch((err) => unexpected.push(`cleanup: ${String(err)}`));
      }
      figures.lasting_effects = effects.length;
      figures.leaks = leaks.length;
      figures.session_state = sessionState.length;
      keepOutput(
        "read-only",
        [
          `postgres lasting effects (${effects.length}):`,
          ...effects,
          `leaks (${leaks.length}):`,
          ...leaks,
          `session state (${sessionState.length}):`,
          ...sessionState,
        ].join("\n"),
      );
      expect({ unexpected, effects, leaks, sessionState }).toEqual({
        unexpected: [],
        effects: [],
        leaks: [],
        sessionState: [],
      });
    });
  },
);

/** A `skillsync` command in a process of its own; resolves with its exit code and output. */
function skillsyncProcess(args: string[]): Promise<{ code: number | null; out: string }> {
  const entry = fileURLToPath(new URL("../../cli/run.ts", import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], {
      env: { ...process.env, SKILLSYNC_SQL_TIMEOUT_MS: "5000" },
    });
    let out = "";
    child.stdout.on("data", (d) => (out += String(d)));
    child.stderr.on("data", (d) => (out += String(d)));
    child.on("close", (code) => resolve({ code, out }));
  });
}

describe.skipIf(unavailable("postgres"))("reads of one warehouse share its reader role", () => {
  // Postgres lets a role end and cancel its own sessions (pg_terminate_backend and
  // pg_cancel_backend need no privilege for that), and every read of a warehouse logs in as the
  // same reader role: a read that runs one of them as text reaches every other read of the
  // warehouse — another `skillsync sql`, the server's table pages, an MCP server's pool. That much
  // is documented (docs/read-only.md, "What the role does not stop") and only counted here; a
  // process whose pooled reader connection was ended must go on answering.
  it("a read that ends the other reads of its role (documented) brings down no process", async () => {
    const url = suiteWarehouse("postgres", "read_only_same_role");
    await seed(url, "postgres");
    const schema = new URL(url).searchParams.get("schema")!;
    const admin = await superuserClient();
    const login = (
      await admin.query<{ role: string; password: string }>(
        `select role, password from "${schema}".skillsync_reader_login`,
      )
    ).rows[0]!;
    const asReader = new URL(PG_URL!);
    asReader.username = login.role;
    asReader.password = login.password;
    const errors: string[] = [];
    const idle = new pg.Client({ connectionString: asReader.toString(), application_name: "same_role_idle" });
    const busy = new pg.Client({ connectionString: asReader.toString(), application_name: "same_role_busy" });
    for (const c of [idle, busy]) {
      c.on("error", (err) => errors.push(String(err)));
      await c.connect();
    }
    const mcp = await startMcp(["--db", url, "--max-credits", "0"], {
      SKILL_API_KEY: API_KEY,
      SKILL_API_BASE_URL: "http://127.0.0.1:9",
      SKILLSYNC_SQL_TIMEOUT_MS: "5000",
    });
    try {
      expect((await mcp.call("query", { sql: "select count(*) as n from user_rows" })).json.rows).toEqual([
        { n: 383 },
      ]);
      const inFlight = busy.query("select pg_sleep(3)").then(
        () => "finished",
        (err: Error) => err.message,
      );
      const busyPid = (busy as unknown as { processID: number }).processID;
      const until = Date.now() + 10_000;
      const active = async () =>
        (await admin.query("select state from pg_stat_activity where pid = $1", [busyPid])).rows[0]?.state;
      while ((await active()) !== "active" && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      const others = "from pg_stat_activity where usename = current_user and pid <> pg_backend_pid()";
      const cancel = await skillsyncProcess([
        "sql",
        xml(`select pg_cancel_backend(pid) ${others}`),
        "--db",
        url,
      ]);
      const busyRead = await inFlight;
      const terminate = await skillsyncProcess([
        "sql",
        xml(`select pg_terminate_backend(pid) ${others}`),
        "--db",
        url,
      ]);
      keepOutput(
        "read-only",
        `same role: cancel → ${cancel.code} ${cancel.out}\nterminate → ${terminate.code} ${terminate.out}`,
      );
      const idleAnswers = await idle.query("select 1 as one").then(
        () => true,
        () => false,
      );
      const mcpAnswers = await mcp.call("query", { sql: "select 1 as one" }).then(
        (r) => !r.isError,
        () => false,
      );
      keepOutput("read-only", `same role: mcp stderr\n${mcp.stderr()}`);
      addFigures("read_only", {
        same_role_reads_ended: (busyRead === "finished" ? 0 : 1) + (idleAnswers ? 0 : 1),
        same_role_processes_crashed: mcpAnswers ? 0 : 1,
      });
      keepOutput(
        "read-only",
        `same role: in-flight read ${busyRead}; idle session answers: ${idleAnswers}; their errors: ${errors.join("; ")}`,
      );
      expect(
        mcpAnswers,
        `skillsync mcp no longer answers after its idle reader connection was ended; its stderr:\n${mcp
          .stderr()
          .split("\n")
          .filter((l) => !/^\s{3}/.test(l))
          .join("\n")
          .slice(0, 1500)}`,
      ).toBe(true);
    } finally {
      await mcp.close().catch(() => {});
      for (const c of [idle, busy]) await c.end().catch(() => {});
      await admin.end();
    }
  });
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
