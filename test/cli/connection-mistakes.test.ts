import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { connectTimeoutMs } from "../../connectors/warehouse/postgres/connect.js";
import { readerRoleName } from "../../connectors/warehouse/postgres/reader.js";
import { afterTest } from "../helpers/after-test.js";
import { cli } from "../helpers/cli.js";
import { closedPort } from "../helpers/closed-port.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { BUNDLE_DIR_ENV, nodeEntry } from "../helpers/node-entry.js";
import { freshWarehouseUrl, PG_URL, throwawayDatabase } from "../helpers/warehouses.js";

// Issue 47 §3: a mistake in where the warehouse is never hangs, and never becomes something else.

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-conn-"));
  afterTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A loopback server that takes connections and then says `greeting` (or nothing), never Postgres. */
async function notPostgres(greeting: string | undefined): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    if (greeting !== undefined) socket.on("data", () => socket.write(greeting));
  });
  afterTest(
    () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(resolve);
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/**
 * The CLI as its own process (a hang must not hang the test's worker). `cwd`: where a relative
 * path would land; only with the suite's bundle, since tsx is found from the repository.
 */
function cliProcess(args: string[], o: { env?: Record<string, string>; cwd?: string } = {}) {
  const started = Date.now();
  const child = spawn(process.execPath, nodeEntry("cli/run.ts", ...args), {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...o.env },
    ...(process.env[BUNDLE_DIR_ENV] && o.cwd ? { cwd: o.cwd } : {}),
  });
  afterTest(() => child.kill("SIGKILL"));
  let err = "";
  child.stderr!.on("data", (c: Buffer) => {
    err += c.toString();
  });
  child.stdout!.resume();
  return new Promise<{ code: number | null; err: string; ms: number }>((resolve) =>
    child.on("exit", (code) => resolve({ code, err, ms: Date.now() - started })),
  );
}

describe("a Postgres address where something else listens", () => {
  it("silent, or answering like Redis: exit 2 within the connect time-out, naming the setting and what answered", async () => {
    const silent = await notPostgres(undefined);
    const redis = await notPostgres("-ERR unknown command 'FOO'\r\n");
    const env = { env: { DATABASE_URL: "" } };
    // All at once, each waiting out a connect time-out of 2 s (libpq's connect_timeout on the URL;
    // 10 s without it, below).
    const [a, b, c] = await Promise.all([
      cliProcess(["tables", "--db", `postgres://postgres@127.0.0.1:${silent}/x?connect_timeout=2`], env),
      cliProcess(
        ["migrate", "--db", `postgres://postgres:pw-secret@127.0.0.1:${redis}/x?connect_timeout=2`],
        env,
      ),
      cliProcess(["runs"], {
        env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${redis}/x?schema=s1&connect_timeout=2` },
      }),
    ]);
    for (const r of [a, b, c]) {
      expect(r.code, r.err).toBe(2);
      expect(r.ms).toBeLessThan(12_000);
      expect(r.err).toMatch(/Check the host and port in --db \(or DATABASE_URL\)/);
    }
    expect(a.err).toContain(
      `cannot reach Postgres at postgres://postgres@127.0.0.1:${silent}/x?connect_timeout=2: the server took the connection but sent nothing within 2 s`,
    );
    expect(b.err).toContain(`what answered there is not Postgres: it sent "-ERR unknown command 'FOO'"`);
    expect(b.err).not.toContain("pw-secret");
    expect(c.err).toContain("what answered there is not Postgres");
  }, 40_000);

  it("waits 10 s to connect unless the URL's connect_timeout (seconds) says otherwise", () => {
    expect(connectTimeoutMs("postgres://postgres@127.0.0.1/x")).toBe(10_000);
    expect(connectTimeoutMs("postgres://postgres@127.0.0.1/x?connect_timeout=30")).toBe(30_000);
    expect(connectTimeoutMs("postgres://postgres@127.0.0.1/x?connect_timeout=0")).toBe(10_000);
    expect(connectTimeoutMs(undefined)).toBe(10_000);
  });
});

describe("a database URL that is not one", () => {
  it("a Postgres URL short of postgres://, or another scheme: exit 2, nothing written, nothing spent", async () => {
    const { emulator } = await emulatorWithClient();
    const cwd = folder();
    for (const url of [
      "postgresql//postgres@127.0.0.1/db",
      "postgres:/x",
      "postgres//x",
      "postgres:x",
      "mysql://u@127.0.0.1/db",
    ]) {
      const r = await cliProcess(["run", "patent-search", "--param", "q=drone"], {
        env: { DATABASE_URL: url, SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY },
        cwd,
      });
      expect(r.code, url).toBe(2);
      expect(r.err, url).toMatch(/invalid database URL \(--db or DATABASE_URL\)/);
      expect(r.err, url).not.toMatch(/succeeded/);
    }
    expect(readdirSync(cwd)).toEqual([]);
    expect(existsSync("postgresql")).toBe(false);
    expect(emulator.ledger().totalCalls).toBe(0);
  }, 60_000);
});

describe.skipIf(!PG_URL)("read commands on a Postgres database without a warehouse", () => {
  /** The tables of `schema` in the database of `url`, and whether its reader role exists. */
  async function made(url: string, schema: string): Promise<{ tables: number; role: boolean }> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const database = new URL(url).pathname.slice(1);
      const t = await c.query(
        "select count(*)::int as n from information_schema.tables where table_schema = $1",
        [schema],
      );
      const r = await c.query("select 1 from pg_roles where rolname = $1", [
        readerRoleName(database, schema),
      ]);
      return { tables: t.rows[0].n, role: r.rowCount === 1 };
    } finally {
      await c.end();
    }
  }

  it("an empty schema or an empty database: exit 2 saying there is no warehouse; no table, no reader role made", async () => {
    const inSchema = freshWarehouseUrl("postgres");
    const schema = new URL(inSchema).searchParams.get("schema")!;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    await admin.end();
    const { url: database } = await throwawayDatabase("h_empty");
    for (const db of [inSchema, database]) {
      for (const args of [["tables"], ["runs"], ["budget"], ["reports", "list"], ["sql", "select 1"]]) {
        const r = await cli([...args, "--db", db]);
        expect(r.code, `${args[0]} ${db}`).toBe(2);
        expect(r.err).toMatch(
          /no skillsync warehouse in postgres:\/\/.* yet: run a pipeline first \(or `skillsync migrate`/,
        );
      }
    }
    expect(await made(PG_URL!, schema)).toEqual({ tables: 0, role: false });
    expect(await made(database, "public")).toEqual({ tables: 0, role: false });
  });
});

describe("the API not there, with fewer calls than the streak that stops a run", () => {
  /** A web server where the API should be: every request gets an HTML page. */
  async function webPage(status: number): Promise<string> {
    const server = createHttpServer((_req, res) => {
      res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><html><head><title>Welcome to nginx!</title></head><body>hi</body></html>");
    });
    afterTest(() => new Promise((resolve) => server.close(resolve)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  it("one call refused, or answered by a web page: exit 2 naming --base-url, SKILL_API_BASE_URL and what answered", async () => {
    const refused = `http://127.0.0.1:${await closedPort()}`;
    const page = await webPage(404);
    for (const [base, what] of [
      [refused, "connection refused"],
      [page, 'what answers there is not the Skill API: HTTP 404, text/html: "Welcome to nginx!"'],
    ] as const) {
      const db = join(folder(), "w.db");
      const r = await cli(["run", "patent-search", "--param", "q=drone", "--db", db], {
        SKILL_API_BASE_URL: base,
        SKILL_API_KEY: DEMO_KEY,
      });
      expect(r.code, r.out + r.err).toBe(2);
      expect(r.out + r.err).toContain(`the API at ${base} is unreachable: ${what}`);
      expect(r.out + r.err).toMatch(/nothing was spent on it\)\. Check --base-url or SKILL_API_BASE_URL/);
      const runs = await cli(["runs", "--db", db, "--json"]);
      expect(JSON.parse(runs.out)[0].credits.spent).toBe(0);
    }
  });
});
